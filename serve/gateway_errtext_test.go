package serve

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/upstream"
)

// TestUpstreamErrTextNamesUpstreamOnce: the newcomer's log read
// `upstream "archive": upstream "archive": cannot start: context canceled`.
func TestUpstreamErrTextNamesUpstreamOnce(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		&upstream.Error{Name: "archive", Msg: "cannot start: boom", Err: errors.New("boom")},
		errors.New("cannot start: boom"),
	} {
		got := upstreamErrText("archive", err)
		if n := strings.Count(got, `upstream "archive"`); n != 1 {
			t.Errorf("%q names the upstream %d times, want once", got, n)
		}
	}
}
