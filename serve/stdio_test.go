package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const (
	stdioInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`
	stdioInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// runStdio runs s on stdio over in and out and returns Run's result.
func runStdio(ctx context.Context, s *Server, in io.Reader, out io.Writer, timeout time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, RunOptions{Stdin: in, Stdout: out, ShutdownTimeout: timeout}) }()
	return done
}

// waitRun waits for Run to return nil.
func waitRun(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(waitLong):
		t.Fatalf("Run did not return %s", what)
	}
}

// answers summarizes the responses in out as "ID result" or "ID error:
// MESSAGE", in arrival order; other messages are left out.
func answers(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for sc.Scan() {
		var m wireMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad message %s: %v", sc.Bytes(), err)
		}
		switch {
		case m.Method != "":
		case m.Error != nil:
			got = append(got, fmt.Sprintf("%s error: %s", m.ID, m.Error.Message))
		default:
			got = append(got, fmt.Sprintf("%s result", m.ID))
		}
	}
	return got
}

// The client writes its requests and closes standard input at once
// (`printf '…' | mcpctl serve`): every request read is answered before the
// session ends, then Run returns. The SDK ends the connection at EOF and
// drops pending responses, so without the drain some of the 20 runs lose
// answers.
func TestStdioAnswersRequestsReadBeforeEOF(t *testing.T) {
	t.Parallel()
	input := strings.Join([]string{
		stdioInitialize,
		stdioInitialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_documents","arguments":{"query":"q"}}}`,
	}, "\n") + "\n"
	want := []string{"1 result", "2 result", "3 result"}
	for i := range 20 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			s, _ := startServer(t, baseConfig)
			var out syncBuffer
			waitRun(t, runStdio(context.Background(), s, strings.NewReader(input), &out, waitLong), "after the end of input")
			got := answers(t, out.String())
			if d := cmp.Diff(want, got, cmpSorted); d != "" {
				t.Fatalf("mismatch (-want +got):\n%s\nstdout:\n%s", d, out.String())
			}
			if !strings.Contains(out.String(), `"text":"found"`) {
				t.Errorf("tools/call answer lacks the tool's text:\n%s", out.String())
			}
		})
	}
}

// cmpSorted compares answer lists as sets: the order of the answers to
// concurrent requests is the server's.
var cmpSorted = cmpopts.SortSlices(func(a, b string) bool { return a < b })

// The wait for answers after the end of input is bounded: by the shutdown
// timeout, and by the context (SIGTERM), also when stdout is blocked.
func TestStdioEOFWaitBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// timeout is RunOptions.ShutdownTimeout.
		timeout time.Duration
		// cancel cancels Run's context once the call is in its handler.
		cancel bool
		// blockedStdout: nobody reads what the server writes.
		blockedStdout bool
	}{
		{name: "shutdown timeout", timeout: 10 * time.Millisecond},
		{name: "context cancelled", timeout: waitLong, cancel: true},
		{name: "context cancelled with stdout blocked", timeout: waitLong, cancel: true, blockedStdout: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			entered := make(chan struct{}, 1)
			unblock := make(chan struct{})
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				entered <- struct{}{}
				select {
				case <-unblock:
				case <-r.Context().Done():
				}
			}))
			defer backend.Close()
			defer close(unblock)
			s, _ := startServer(t, `tools:
  - name: stuck
    inputSchema: {type: object}
    handler: {http: {url: "`+backend.URL+`"}}
`)
			input := strings.Join([]string{
				stdioInitialize,
				stdioInitialized,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stuck","arguments":{}}}`,
				`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
			}, "\n") + "\n"
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out io.Writer
			var buf syncBuffer
			if tt.blockedStdout {
				// The client reads the initialize answer, then nothing: the
				// tools/list answer blocks in its write.
				outR, outW := io.Pipe()
				out = outW
				first := make(chan struct{})
				go func() {
					defer close(first)
					_, _ = bufio.NewReader(outR).ReadBytes('\n')
				}()
				// Release the blocked writer at the end so no goroutine
				// is left behind.
				defer func() {
					<-first
					outR.Close()
				}()
			} else {
				out = &buf
			}
			done := runStdio(ctx, s, strings.NewReader(input), out, tt.timeout)
			if tt.cancel {
				select {
				case <-entered:
				case err := <-done:
					t.Fatalf("Run returned (%v) before the call reached its handler", err)
				case <-time.After(waitLong):
					t.Fatal("the call never reached its handler")
				}
				if !tt.blockedStdout {
					// tools/list (id 3) is answered while the call hangs;
					// wait for that answer before ending the context.
					deadline := time.Now().Add(waitLong)
					for !slices.Contains(answers(t, buf.String()), "3 result") {
						if time.Now().After(deadline) {
							t.Fatal("tools/list was not answered while the call hung")
						}
						time.Sleep(5 * time.Millisecond)
					}
				}
				select {
				case err := <-done:
					t.Fatalf("Run returned (%v) before its context ended, with a call unanswered", err)
				default:
				}
				cancel()
			}
			waitRun(t, done, "while a call never finished")
			switch {
			case tt.blockedStdout:
			case tt.cancel:
				if d := cmp.Diff([]string{"1 result", "3 result"}, answers(t, buf.String()), cmpSorted); d != "" {
					t.Errorf("mismatch (-want +got):\n%s", d)
				}
			default:
				// Run returned although the call hung (waitRun checked
				// that); on a loaded machine the timeout may pass before
				// the other answers are written, so only the hung call's
				// absence is certain.
				if got := answers(t, buf.String()); slices.Contains(got, "2 result") {
					t.Errorf("answers %v: the hung call was answered", got)
				}
			}
		})
	}
}
