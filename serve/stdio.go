package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxBatch bounds the messages of one JSON-RPC batch, where the negotiated
// revision allows batches (2025-03-26 and earlier).
const MaxBatch = 100

// firstBatchlessRevision is the MCP revision that removed JSON-RPC
// batching (2025-06-18, Changelog: "Remove support for JSON-RPC
// batching").
const firstBatchlessRevision = "2025-06-18"

// batchAllowed reports whether a session at the negotiated revision may
// send a batch: only once a revision before 2025-06-18 was negotiated
// (initialize itself must not be batched, 2025-03-26 Lifecycle).
func batchAllowed(revision string) bool {
	return revision != "" && revision < firstBatchlessRevision
}

// batchRefusal says why a batch of n messages (n < 0: not counted yet) is
// refused at the negotiated revision, or "" when it is not; stdio and HTTP
// word it alike.
func batchRefusal(revision string, n int) string {
	switch {
	case !batchAllowed(revision):
		return fmt.Sprintf("JSON-RPC batches are not accepted: %s removed batching (this session: %s)", firstBatchlessRevision, revisionOrNone(revision))
	case n == 0 || n > MaxBatch:
		return fmt.Sprintf("a batch holds 1 to %d messages", MaxBatch)
	}
	return ""
}

// frameReader stands between standard input and the SDK's stdio
// transport, which ends the session at the first line that is not a
// JSON-RPC message, and accepts batches at every revision. It passes on
// only lines that decode as one JSON-RPC message, or as a batch the
// session's revision allows, of at most MaxBatch messages; every other
// line is answered here with a JSON-RPC error (id null unless the line's
// id could be read) and the session goes on. Lines longer than maxLine
// are skipped whole and answered the same way. Messages are delimited by
// newlines and contain none (MCP 2025-11-25, Transports › stdio).
type frameReader struct {
	in      *bufio.Reader
	out     io.Writer // shared with the transport (a lockedWriter)
	maxLine int
	// session says the negotiated revision and whether an id is in
	// flight (the transport's connection, once connected).
	session func() stdioSession
	log     *slog.Logger
	// fast, when set, takes the lines the fast path answers.
	fast *fastLines
	// maxUnanswered bounds the requests read and not yet answered (their
	// response written): at that many, no line is read until one is
	// answered (0: no bound). See unansweredBound.
	maxUnanswered int

	pending []byte // an admitted line not yet read by the transport
	err     error  // the input's error, returned once pending is read
}

// stdioSession is what frameReader needs to know of the session.
type stdioSession interface {
	revision() string
	inFlight(id jsonrpc.ID) bool
	track(id jsonrpc.ID)
	answering(id jsonrpc.ID) (written func())
	waitRoom(limit int)
}

// errLineTooLong marks a line over the length limit.
var errLineTooLong = errors.New("line too long")

// Read implements io.Reader.
func (r *frameReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.session().waitRoom(r.maxUnanswered)
		line, err := r.readLine()
		switch {
		case errors.Is(err, errLineTooLong):
			r.answer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", r.maxLine))
			continue
		case err != nil:
			r.err = err
		}
		if msg := r.admit(line); msg != nil {
			r.pending = append(msg, '\n')
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// readLine returns the next line without its end; past maxLine bytes it
// skips to the end of the line and returns errLineTooLong.
func (r *frameReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.in.ReadSlice('\n')
		if len(line)+len(chunk) > r.maxLine+2 { // the end may be "\r\n"
			line = nil
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.in.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), err
		}
	}
}

// admit returns line when the transport may read it, or answers it and
// returns nil.
func (r *frameReader) admit(line []byte) []byte {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil
	case r.fast != nil && r.fast.take(line): // before json.Valid: it reads the line whole
		return nil
	case !json.Valid(line):
		r.answer(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
		return nil
	case line[0] == '[':
		return r.admitBatch(line)
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		r.answer(line, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	return line
}

// admitBatch admits a batch the session's revision allows, of at most
// MaxBatch messages that are each valid, with ids neither repeated nor in
// flight (the SDK ends the session on those).
func (r *frameReader) admitBatch(line []byte) []byte {
	ss := r.session()
	if msg := batchRefusal(ss.revision(), -1); msg != "" {
		r.answer(nil, jsonrpc.CodeInvalidRequest, msg)
		return nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil || batchRefusal(ss.revision(), len(raws)) != "" {
		r.answer(nil, jsonrpc.CodeInvalidRequest, batchRefusal(ss.revision(), len(raws)))
		return nil
	}
	seen := map[jsonrpc.ID]bool{}
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			r.answer(nil, jsonrpc.CodeInvalidRequest, "invalid request in a batch: "+err.Error())
			return nil
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if seen[req.ID] || ss.inFlight(req.ID) {
				r.answer(nil, jsonrpc.CodeInvalidRequest, "a batch repeats a request id, or reuses one in flight")
				return nil
			}
			seen[req.ID] = true
		}
	}
	return line
}

func revisionOrNone(rev string) string {
	if rev == "" {
		return "not initialized"
	}
	return rev
}

// answer writes a JSON-RPC error response for a refused line: with the
// line's id when it has a readable one, else id null (JSON-RPC 2.0 §5).
func (r *frameReader) answer(line []byte, code int64, msg string) {
	id := json.RawMessage("null")
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if line != nil && json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 {
		if v := bytes.TrimSpace(probe.ID); len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
			id = v
		}
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return
	}
	r.log.Warn("stdio: refused a message", "code", code, "reason", msg)
	_, _ = r.out.Write(append(b, '\n'))
}

// lockedWriter makes each Write whole: the SDK writes one message per
// Write, and frameReader's answers come from another goroutine.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	// timeout (0: none) bounds each write when w takes deadlines (a
	// net.Conn): a client that takes none of a message for that long is
	// not reading, and its stream is closed, which ends the session. The
	// go-sdk closes a session only once nothing is in flight, so a write
	// that never ends would hold its Close, and with it every call of
	// that session, forever.
	timeout time.Duration
	broken  error // set once a write was given up: the stream is closed
}

// errClientNotReading is wrapped by the error of a write to a client that
// took none of it within the session's write timeout, and every later one.
var errClientNotReading = errors.New("the client is not reading")

type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.broken != nil {
		return 0, l.broken
	}
	dl, ok := l.w.(writeDeadliner)
	if !ok || l.timeout <= 0 || dl.SetWriteDeadline(time.Now().Add(l.timeout)) != nil {
		return l.w.Write(p)
	}
	n, err := l.w.Write(p)
	_ = dl.SetWriteDeadline(time.Time{})
	if errors.Is(err, os.ErrDeadlineExceeded) {
		l.broken = fmt.Errorf("%w: it took %d of a message's %d bytes in %v", errClientNotReading, n, len(p), l.timeout)
		if c, ok := l.w.(io.Closer); ok {
			_ = c.Close()
		}
		return n, l.broken
	}
	return n, err
}

// stdioTransport is the stdio transport of Run: frameReader (with the
// fast path) in front of the SDK's IOTransport, wrapped by drainTransport.
// Attach the fast path to the session once connected.
func (s *Server) stdioTransport(in io.Reader, out io.Writer, stop <-chan struct{}, o RunOptions) (*drainTransport, *fastLines) {
	return s.lineTransport(readCloser{in}, writeCloser{out}, stop, o.ShutdownTimeout, 0)
}

// lineTransport is a line-delimited transport over in and out (closing
// the connection closes both).
func (s *Server) lineTransport(in io.ReadCloser, out io.WriteCloser, stop <-chan struct{}, timeout, writeTimeout time.Duration) (*drainTransport, *fastLines) {
	w := &lockedWriter{w: out, timeout: writeTimeout}
	t := &drainTransport{stop: stop, timeout: timeout, log: s.log, inputEnded: s.hooks.inputEnded}
	session := func() stdioSession { return t.session() }
	fast := newFastLines(s, w, session)
	fr := &frameReader{
		in:      bufio.NewReaderSize(in, 64<<10),
		out:     w,
		maxLine: mcp.DefaultMaxLineLength,
		session: session,
		log:     s.log,
		fast:    fast,

		maxUnanswered: s.unansweredBound(),
	}
	// frameReader bounds lines; the SDK's own bound would end the session.
	t.Transport = &mcp.IOTransport{Reader: closingReader{fr, in}, Writer: closingWriter{w, out}, MaxLineLength: -1}
	return t, fast
}

// unansweredBound is the most requests a line-delimited session may have
// read and not answered before its input waits: twice Options.MaxCalls
// (none without that bound). --max-calls bounds the calls running; a
// client that sends calls and reads none of the answers would otherwise
// make the server hold every answer, and the goroutine writing it,
// without end. At most MaxCalls of them run, so the rest are answers the
// client is not taking: waiting for it to take one first cannot hold up a
// client that reads.
func (s *Server) unansweredBound() int {
	return 2 * max(s.opts.MaxCalls, 0)
}

// closingReader and closingWriter read or write through a filter and
// close the stream beneath it.
type closingReader struct {
	io.Reader
	io.Closer
}

type closingWriter struct {
	io.Writer
	io.Closer
}

// streamDrainTimeout bounds how long the end of a ConnectStream's input
// waits for the requests read to be answered.
const streamDrainTimeout = 10 * time.Second

// ConnectStream serves one session over a line-delimited stream (one end
// of a net.Pipe, say), framed as stdio (MCP 2025-11-25
// basic/transports) and with the fast path in front of the go-sdk as Run's
// stdio has it. Closing the session closes rwc. When rwc takes write
// deadlines (a net.Conn), a client that takes none of a message for
// streamDrainTimeout is not reading: rwc is closed, ending the session.
func (s *Server) ConnectStream(ctx context.Context, rwc io.ReadWriteCloser) (*mcp.ServerSession, error) {
	writeTimeout := streamDrainTimeout
	if s.hooks.lineWriteTimeout > 0 {
		writeTimeout = s.hooks.lineWriteTimeout
	}
	t, fast := s.lineTransport(rwc, rwc, nil, streamDrainTimeout, writeTimeout)
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return nil, err
	}
	fast.attach(ss)
	return ss, nil
}
