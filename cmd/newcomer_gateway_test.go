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

// TestNewcomerApproveNamesTheMissingFlag (reproduction: `mcpctl approve
// --admin 127.0.0.1:8962 FINGERPRINT` said "approve needs --admin ADDR and
// --reason TEXT", although --admin was there). The usage error names only
// what is missing.
func TestNewcomerApproveNamesTheMissingFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"approve", "--admin", "127.0.0.1:1", "abc"}, "approve needs --reason TEXT\n"},
		{[]string{"reject", "--reason", "r", "abc"}, "reject needs --admin ADDR\n"},
		{[]string{"approve", "abc"}, "approve needs --admin ADDR and --reason TEXT\n"},
	} {
		var out, errOut bytes.Buffer
		code := Main(tc.args, strings.NewReader(""), &out, &errOut)
		if code != 2 || !strings.HasSuffix(errOut.String(), tc.want) {
			t.Errorf("mcpctl %s: exit %d, stderr %q, want 2 and %q", strings.Join(tc.args, " "), code, errOut.String(), tc.want)
		}
	}
}
