package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/canon"
)

// CommandTransport is an MCP stdio client transport (MCP 2025-11-25
// basic/transports, stdio) for cmd, which must not be started yet. It is
// mcp.CommandTransport but for what would end the go-sdk's session with
// a decoding error: a line on the server's standard output that is not a
// JSON-RPC message (the specification forbids them, yet servers print
// banners such as "Server starting...") is skipped, a message nested
// deeper than canon.MaxDepth is replaced as TooDeep
// says (a response by an error response to its request), and a line the
// go-sdk's transport refuses otherwise is made readable (goSDKLine). Each
// is passed to warn with why.
// Closing the connection closes the server's stdin, waits terminate, sends
// SIGTERM, waits terminate again, then kills it (MCP 2025-11-25
// basic/lifecycle, "Shutdown").
func CommandTransport(cmd *exec.Cmd, terminate time.Duration, warn func(line, why string)) mcp.Transport {
	return &commandTransport{cmd: cmd, terminate: terminate, warn: warn}
}

// RawCommandTransport is CommandTransport with raw's calls sent on the
// same connection (see RawCalls).
func RawCommandTransport(cmd *exec.Cmd, terminate time.Duration, warn func(line, why string), raw *RawCalls) mcp.Transport {
	return &commandTransport{cmd: cmd, terminate: terminate, warn: warn, raw: raw}
}

// PipeTransport is a client transport over a line-delimited byte stream
// already connected to a server (tests: one end of a net.Pipe), read and
// written as CommandTransport reads and writes a server's stdio, with
// raw's calls (nil: none) sent on the same connection.
func PipeTransport(rwc io.ReadWriteCloser, warn func(line, why string), raw *RawCalls) mcp.Transport {
	return &pipeTransport{rwc: rwc, warn: warn, raw: raw}
}

type pipeTransport struct {
	rwc  io.ReadWriteCloser
	warn func(line, why string)
	raw  *RawCalls
}

func (t *pipeTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	return lineConnect(ctx, t.rwc, t.rwc, t.warn, t.raw)
}

// lineConnect connects the go-sdk's IOTransport over in (through
// jsonLines, which hands raw its responses) and out.
func lineConnect(ctx context.Context, in io.Reader, out io.WriteCloser, warn func(line, why string), raw *RawCalls) (mcp.Connection, error) {
	if raw != nil {
		out = raw.writer(out)
	}
	r := io.NopCloser(&jsonLines{r: bufio.NewReader(in), warn: warn, raw: raw})
	return (&mcp.IOTransport{Reader: r, Writer: out}).Connect(ctx)
}

type commandTransport struct {
	cmd       *exec.Cmd
	terminate time.Duration
	warn      func(line, why string)
	raw       *RawCalls
}

func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// The server's stdin is a pipe of our own rather than StdinPipe's,
	// whose writer hides the file: writes to it can then be given a
	// deadline (RawCalls bounds them by the upstream's timeout).
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t.cmd.Stdin = stdinR
	err = t.cmd.Start()
	_ = stdinR.Close() // the server's end, which it now holds
	if err != nil {
		_ = stdin.Close()
		return nil, err
	}
	// Waiting from the start closes stdout when the server exits, even
	// while a child it forked holds stdout open: the session then ends.
	out := &processStdin{WriteCloser: stdin, file: stdin, cmd: t.cmd, terminate: t.terminate, exited: make(chan struct{})}
	go func() {
		out.err = t.cmd.Wait()
		close(out.exited)
	}()
	return lineConnect(ctx, stdout, out, t.warn, t.raw)
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
// every other line (its first bytes) to warn. Responses to raw's calls,
// also those in a batch (RawCalls.takeLine), go to raw instead; the end
// of r ends raw's calls. A message nested deeper than canon.MaxDepth is
// tooDeepLine's.
type jsonLines struct {
	r    *bufio.Reader
	warn func(line, why string)
	raw  *RawCalls
	buf  []byte
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.buf) == 0 {
		line, err := j.line()
		j.buf = j.pass(line)
		if err != nil {
			j.raw.close(err)
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

// pass returns what the go-sdk reads of line: nothing for a line that is
// not JSON-RPC or a response raw takes, tooDeepLine's for one nested too
// deep, goSDKLine's for one its decoder refuses, the line itself
// otherwise.
func (j *jsonLines) pass(line []byte) []byte {
	trimmed := bytes.Trim(line, jsonSpace) // as line and the go-sdk's decoder read it
	if len(trimmed) > 0 && !isJSONStart(trimmed[0]) {
		j.skipped(trimmed, "that is not JSON-RPC")
		return nil
	}
	if j.raw.takesPlain(trimmed) { // read once: no check below can refuse it
		return nil
	}
	if repl, why, deep := tooDeepLine(trimmed); deep {
		j.skipped(trimmed, why)
		line, trimmed = repl, repl
		if repl != nil {
			line = append(repl, '\n')
		}
	}
	if len(trimmed) == 0 {
		return line
	}
	if msgs, why, changed := goSDKLine(trimmed); changed {
		j.skipped(trimmed, why)
		return j.passEach(msgs)
	}
	if rest, taken := j.raw.takeLine(trimmed); taken {
		if rest == nil {
			return nil
		}
		return append(rest, '\n')
	}
	if len(line) != len(trimmed)+1 {
		// The go-sdk refuses white space after a message but its newline.
		return append(trimmed, '\n')
	}
	return line
}

// passEach is pass for msgs, each a line without its newline.
func (j *jsonLines) passEach(msgs [][]byte) []byte {
	var out []byte
	for _, m := range msgs {
		if rest, taken := j.raw.takeLine(m); taken {
			m = rest
		}
		if m != nil {
			out = append(append(out, m...), '\n')
		}
	}
	return out
}

func isJSONStart(c byte) bool { return c == '{' || c == '[' }

// jsonSpace is JSON's white space (RFC 8259 §2); Unicode's other white
// space (U+00A0…) starts no JSON-RPC message.
const jsonSpace = " \t\r\n"

// goSDKLine is line as the go-sdk's client must read it not to end the
// connection, when that is not line (changed): msgs, each a line. Its
// stdio transport ends the connection at a line that is not one JSON
// value ending at the newline (not JSON, or more after the value: the
// value is not read), at a message its decoder refuses (a server's JSON
// log line such as {"level":"info"}, a response with a null id), and at
// a batch holding one or two requests with one id (notifications count
// as requests with one id). Such a message is skipped, as a line that is
// not JSON-RPC is, but for one that is JSON at its top level only (a
// trailing comma or a raw tab in its result, say) and for a response
// whose error is not an error object (unreadable): a response becomes an
// error response to its request, a request loses its params, as TooDeep
// has them. The values of a line are read one a line, up to what is not
// JSON; a batch the go-sdk refuses is split into the messages it reads,
// one a line. why says what was done.
func goSDKLine(line []byte) (msgs [][]byte, why string, changed bool) {
	if v, err := canon.Skim(line, 1); err == nil { // one value, as most lines
		if v.Kind == canon.Array {
			return goSDKBatch(line, v.Items)
		}
		if _, _, ok := readSkimmed(line, v, nil); ok && !emptyResponse(&v) {
			return nil, "", false
		}
		if repl, why := unreadable(line); repl != nil {
			return [][]byte{repl}, "that is " + why, true
		}
		return nil, "that is not a JSON-RPC message", true
	}
	vals := jsonValues(line)
	if len(vals) == 1 && len(vals[0]) == len(line) && line[0] == '{' {
		if _, _, ok := readAsGoSDK(line); ok {
			return nil, "", false // a message canon refuses and the go-sdk reads
		}
	}
	for _, v := range vals {
		if v[0] == '[' {
			var items []json.RawMessage
			_ = json.Unmarshal(v, &items)
			batch, _, _ := goSDKMessages(items)
			msgs = append(msgs, batch...)
		} else if _, _, ok := readAsGoSDK(v); ok {
			msgs = append(msgs, v)
		}
	}
	return msgs, "that is not one JSON-RPC message: its messages read one a line", true
}

// jsonValues are the JSON values line holds, up to what is not JSON.
func jsonValues(line []byte) [][]byte {
	var vals [][]byte
	for dec := json.NewDecoder(bytes.NewReader(line)); ; {
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return vals
		}
		vals = append(vals, v)
	}
}

// goSDKBatch is goSDKLine for a batch, its messages items.
func goSDKBatch(line []byte, items []canon.Value) (msgs [][]byte, why string, changed bool) {
	all := make([]json.RawMessage, len(items))
	for i, it := range items {
		all[i] = line[it.Start:it.End]
	}
	msgs, distinct, replaced := goSDKMessages(all)
	if len(msgs) == len(all) && len(msgs) > 0 && distinct && !replaced {
		return nil, "", false
	}
	return msgs, "a batch the go-sdk refuses (a message that is not JSON-RPC, two requests with one id, or none): split into the messages it reads", true
}

// goSDKMessages are the messages among items the go-sdk's decoder reads,
// one it cannot take replaced when it can be answered (unreadable:
// replaced); distinct is false when two of them are requests with one
// id.
func goSDKMessages(items []json.RawMessage) (msgs [][]byte, distinct, replaced bool) {
	ids := map[jsonrpc.ID]bool{}
	distinct = true
	for _, m := range items {
		id, request, ok := readAsGoSDK(m)
		if !ok || emptyIn(m) {
			if m, _ = unreadable(m); m == nil {
				continue
			}
			id, request, _ = readAsGoSDK(m)
			replaced = true
		}
		if request {
			distinct = distinct && !ids[id]
			ids[id] = true
		}
		msgs = append(msgs, m)
	}
	return msgs, distinct, replaced
}

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
		if t := bytes.TrimLeft(line, jsonSpace); len(t) > 0 && !isJSONStart(t[0]) {
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

// skipped hands warn a line the go-sdk does not read as it came, and
// why.
func (j *jsonLines) skipped(line []byte, why string) {
	if j.warn != nil {
		j.warn(string(line[:min(len(line), maxQuoted+1)]), why)
	}
}

// processStdin is the server's stdin; closing it ends the server.
type processStdin struct {
	io.WriteCloser
	file      *os.File // the same pipe, for SetWriteDeadline
	cmd       *exec.Cmd
	terminate time.Duration
	// exited is closed when the server has exited, with err its Wait's.
	exited chan struct{}
	err    error
}

// SetWriteDeadline bounds the writes to the server's stdin (os.File's).
func (s *processStdin) SetWriteDeadline(t time.Time) error { return s.file.SetWriteDeadline(t) }

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
