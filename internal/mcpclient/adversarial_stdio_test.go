package mcpclient

import (
	"bufio"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields n bytes of b, then rest.
func repeatReader(b byte, n int64, rest string) io.Reader {
	return io.MultiReader(io.LimitReader(byteReader(b), n), strings.NewReader(rest))
}

type byteReader byte

func (r byteReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestAdversarialGatewayStdioLongLine: a stdio upstream (the gateway's, or
// mcpctl diff's live server) that writes a line of garbage without end
// (here 256 MiB of 'x' before its newline) must not make mcpctl buffer it:
// the line is skipped as any non-JSON line, reading at most a bounded
// number of bytes of it, and the next message still arrives. Before, the
// whole line was read into memory first (a server writing without newline
// ended the process out of memory).
func TestAdversarialGatewayStdioLongLine(t *testing.T) {
	// not parallel: measures the process's allocations (runtime.MemStats)
	const garbage = 256 << 20
	msg := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	var warned []string
	var got []byte
	var err error
	n := allocated(func() {
		j := &jsonLines{r: bufio.NewReader(repeatReader('x', garbage, "\n"+msg)), warn: func(l, _ string) { warned = append(warned, l) }}
		got, err = io.ReadAll(j)
	})
	if err != nil || string(got) != msg {
		t.Fatalf("read %q, %v; want the message after the garbage", cutLine(string(got)), err)
	}
	if len(warned) != 1 || len(warned[0]) > 4096 {
		t.Errorf("warned %d line(s) (first %d bytes), want one, quoted short", len(warned), len(warned[0]))
	}
	t.Logf("skipping a %d MiB line allocated %d KiB", garbage>>20, n>>10)
	if n > garbage/8 {
		t.Errorf("skipping a %d MiB line allocated %d MiB", garbage>>20, n>>20)
	}
}

// TestAdversarialGatewayStdioHugeMessage: a JSON-RPC message longer than
// MaxMessageSize (a tools/list of 100 MB) ends the connection with
// ErrMessageTooLarge instead of being read into memory.
func TestAdversarialGatewayStdioHugeMessage(t *testing.T) {
	t.Parallel()
	j := &jsonLines{warn: func(_, _ string) {}}
	j.r = bufio.NewReader(io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`), repeatReader(' ', MaxMessageSize, "]}}\n")))
	_, err := io.ReadAll(j)
	if !errors.Is(err, ErrMessageTooLarge) {
		t.Errorf("err = %v, want ErrMessageTooLarge", err)
	}
}

func cutLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
