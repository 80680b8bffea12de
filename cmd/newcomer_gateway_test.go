package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// TestNewcomerServeHelpNamesTheGateway (reproduction: an operator who
// wanted the gate in front of server-filesystem read `mcpctl serve --help`
// top to bottom and found nothing about fronting another server). The help
// says that a config's upstreams: entries put the gate in front of other
// MCP servers, and where that is described.
func TestNewcomerServeHelpNamesTheGateway(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := Main([]string{"serve", "--help"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("serve --help: exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"upstreams:", "docs/gateway.md", "mcpctl status --admin", "mcpctl approve"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve --help lacks %q", want)
		}
	}
}
