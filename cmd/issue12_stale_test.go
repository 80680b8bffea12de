package cmd

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/serve"
)

// TestIssue12ApproveStaleCandidate (reproduction: `mcpctl approve` of a
// candidate the config had gone past since failed with the same untyped
// "refused" as any other decision). The server answers 410 Gone for a
// stale (superseded) candidate; approve and reject return ErrStale,
// which is an ErrDecision: exit 1, as `mcpctl help exit-codes` says.
func TestIssue12ApproveStaleCandidate(t *testing.T) {
	t.Parallel()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusGone)
		_, _ = w.Write([]byte(`{"error":"aaaa is stale: the config went on to candidate bbbb since"}`))
	}))
	defer hs.Close()
	for _, approve := range []bool{true, false} {
		var out bytes.Buffer
		opts := decisionOptions{Approve: approve, Admin: strings.TrimPrefix(hs.URL, "http://"), Timeout: time.Minute,
			Decision: serve.Decision{Fingerprint: strings.Repeat("a", 64), Reason: "x"}}
		err := runDecision(context.Background(), &Streams{Out: &out, ErrOut: &out}, opts)
		if !errors.Is(err, ErrStale) || !errors.Is(err, ErrDecision) || exitCode(err) != ExitFindings {
			t.Errorf("approve %v: %v (exit %d), want ErrStale, exit 1", approve, err, exitCode(err))
		}
	}
	if !strings.Contains(exitCodesHelp, "stale") {
		t.Error("mcpctl help exit-codes does not mention a stale candidate")
	}
}
