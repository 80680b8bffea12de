package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CommandTransport is an MCP stdio client transport (MCP 2025-11-25
// basic/transports, stdio) for cmd, which must not be started yet. It is
// mcp.CommandTransport but for one thing: a line on the server's standard
// output that is not a JSON-RPC message (the specification forbids them,
// yet servers print banners such as "Server starting...") is skipped and
// passed to warn instead of ending the session with a decoding error.
// Closing the connection closes the server's stdin, waits terminate, sends
// SIGTERM, waits terminate again, then kills it (MCP 2025-11-25
// basic/lifecycle, "Shutdown").
func CommandTransport(cmd *exec.Cmd, terminate time.Duration, warn func(line string)) mcp.Transport {
	return &commandTransport{cmd: cmd, terminate: terminate, warn: warn}
}

type commandTransport struct {
	cmd       *exec.Cmd
	terminate time.Duration
	warn      func(string)
}

func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	// Waiting from the start closes stdout when the server exits, even
	// while a child it forked holds stdout open: the session then ends.
	out := &processStdin{WriteCloser: stdin, cmd: t.cmd, terminate: t.terminate, exited: make(chan struct{})}
	go func() {
		out.err = t.cmd.Wait()
		close(out.exited)
	}()
	in := io.NopCloser(&jsonLines{r: bufio.NewReader(stdout), warn: t.warn})
	return (&mcp.IOTransport{Reader: in, Writer: out}).Connect(ctx)
}

// MaxMessageSize bounds one line of a stdio server's output (64 MiB): a
// longer JSON-RPC message ends the connection with ErrMessageTooLarge (a
// line that is not JSON-RPC is skipped, whatever its length, without being
// kept).
const MaxMessageSize = 64 << 20

// ErrMessageTooLarge ends a stdio connection whose server sent a message
// longer than MaxMessageSize.
var ErrMessageTooLarge = errors.New("the server sent a message longer than the limit")

// jsonLines passes through the lines of r that can start a JSON-RPC
// message (first non-blank byte '{' or '[') and blank lines, and hands
// every other line (its first bytes) to warn.
type jsonLines struct {
	r    *bufio.Reader
	warn func(string)
	buf  []byte
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.buf) == 0 {
		line, err := j.line()
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 && !isJSONStart(trimmed[0]) {
			j.skipped(trimmed)
			line = nil
		}
		j.buf = line
		if err != nil {
			if len(j.buf) > 0 {
				break
			}
			return 0, err
		}
	}
	n := copy(p, j.buf)
	j.buf = j.buf[n:]
	return n, nil
}

func isJSONStart(c byte) bool { return c == '{' || c == '[' }

// line reads the next line, newline included. A line that is not
// JSON-RPC is skipped to its end as soon as its first non-blank byte says
// so, and only its first bytes are returned; a JSON-RPC line longer than
// MaxMessageSize is ErrMessageTooLarge.
func (j *jsonLines) line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := j.r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxMessageSize {
			return nil, fmt.Errorf("%w (%d bytes)", ErrMessageTooLarge, MaxMessageSize)
		}
		line = append(line, chunk...)
		if t := bytes.TrimLeft(line, " \t\r\n"); len(t) > 0 && !isJSONStart(t[0]) {
			return line[:min(len(line), maxQuoted+1)], j.discard(err)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// discard reads to the end of the current line (err is the last read's).
func (j *jsonLines) discard(err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = j.r.ReadSlice('\n')
	}
	return err
}

// skipped hands a line that is not JSON-RPC to warn.
func (j *jsonLines) skipped(line []byte) {
	if j.warn != nil {
		j.warn(string(line))
	}
}

// processStdin is the server's stdin; closing it ends the server.
type processStdin struct {
	io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
	// exited is closed when the server has exited, with err its Wait's.
	exited chan struct{}
	err    error
}

func (s *processStdin) Close() error {
	if err := s.WriteCloser.Close(); err != nil {
		return fmt.Errorf("closing stdin: %w", err)
	}
	wait := func() (error, bool) {
		select {
		case <-s.exited:
			return s.err, true
		case <-time.After(s.terminate):
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if s.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("the server does not exit")
}
