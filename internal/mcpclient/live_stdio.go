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
	in := io.NopCloser(&jsonLines{r: bufio.NewReader(stdout), warn: t.warn})
	out := &processStdin{WriteCloser: stdin, cmd: t.cmd, terminate: t.terminate}
	return (&mcp.IOTransport{Reader: in, Writer: out}).Connect(ctx)
}

// jsonLines passes through the lines of r that can start a JSON-RPC
// message (first non-blank byte '{' or '[') and blank lines, and hands
// every other line to warn.
type jsonLines struct {
	r    *bufio.Reader
	warn func(string)
	buf  []byte
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.buf) == 0 {
		line, err := j.r.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 && trimmed[0] != '{' && trimmed[0] != '[' {
			if j.warn != nil {
				j.warn(string(trimmed))
			}
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

// processStdin is the server's stdin; closing it ends the server.
type processStdin struct {
	io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
}

func (s *processStdin) Close() error {
	if err := s.WriteCloser.Close(); err != nil {
		return fmt.Errorf("closing stdin: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	wait := func() (error, bool) {
		select {
		case err := <-done:
			return err, true
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
