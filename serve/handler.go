package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/canon"
)

// Handler executes one tool call (docs/serve.md#transports-admin-security). args is the validated
// arguments object as JSON. A returned error is a failure of the handler
// (timeout, exit status, HTTP status, output too large); it becomes an
// isError result, never a protocol error. Handlers are safe for concurrent
// use.
type Handler interface {
	Call(ctx context.Context, args []byte) (*Output, error)
	// Close releases what the handler owns; it is called once, after the
	// last call of the generation that built it has returned.
	Close()
}

// Output is what a handler produced.
type Output struct {
	// Body becomes the call's text content (and, when it is JSON and the
	// tool has an outputSchema, its structuredContent).
	Body []byte
}

// buildHandler makes the handler of one tool. dir is the config's folder
// (relative commands and working folders are resolved against it); getenv
// reads the server's environment.
func buildHandler(h *HandlerConfig, dir string, getenv func(string) (string, bool)) (Handler, error) {
	switch {
	case h.Exec != nil:
		return newExecHandler(h.Exec, dir, getenv)
	case h.HTTP != nil:
		return newHTTPHandler(h.HTTP, getenv)
	case h.Static != nil:
		if h.Static.JSON != nil {
			return staticHandler{body: appendOrdered(nil, h.Static.JSON)}, nil
		}
		return staticHandler{body: []byte(h.Static.Text)}, nil
	}
	return nil, errors.New("handler needs one of exec, http or static")
}

type staticHandler struct{ body []byte }

func (s staticHandler) Call(context.Context, []byte) (*Output, error) {
	return &Output{Body: s.body}, nil
}
func (staticHandler) Close() {}

// execHandler runs a command without a shell (see ExecConfig).
type execHandler struct {
	argv      []string
	dir       string
	env       []string
	timeout   time.Duration
	maxOutput int64
}

func newExecHandler(c *ExecConfig, dir string, getenv func(string) (string, bool)) (*execHandler, error) {
	argv := append([]string(nil), c.Command...)
	prog := argv[0]
	switch {
	case filepath.IsAbs(prog):
	case strings.ContainsRune(prog, filepath.Separator) || strings.ContainsRune(prog, '/'):
		prog = filepath.Join(dir, prog)
	default:
		p, err := lookPath(prog, getenv)
		if err != nil {
			return nil, fmt.Errorf("command %q: %w", prog, err)
		}
		prog = p
	}
	fi, err := os.Stat(prog)
	if err != nil {
		return nil, fmt.Errorf("command %q: %v", c.Command[0], unwrapPath(err))
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("command %q: %s is not an executable file", c.Command[0], prog)
	}
	argv[0] = prog
	wd := dir
	if c.Dir != "" {
		wd = c.Dir
		if !filepath.IsAbs(wd) {
			wd = filepath.Join(dir, wd)
		}
	}
	env := []string{}
	names := append([]string{"PATH"}, c.Env...)
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if v, ok := getenv(n); ok {
			env = append(env, n+"="+v)
		}
	}
	return &execHandler{argv: argv, dir: wd, env: env, timeout: c.Timeout, maxOutput: c.MaxOutput}, nil
}

// lookPath finds prog in the PATH of getenv.
func lookPath(prog string, getenv func(string) (string, bool)) (string, error) {
	path, _ := getenv("PATH")
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, prog)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// errOutputTooLarge is returned when a handler's output exceeds its cap.
var errOutputTooLarge = errors.New("output too large")

func (h *execHandler) Call(parent context.Context, args []byte) (*Output, error) {
	ctx, cancel := context.WithTimeout(parent, h.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.argv[0], h.argv[1:]...)
	cmd.Dir = h.dir
	cmd.Env = h.env
	cmd.Stdin = bytes.NewReader(args)
	out := &capWriter{max: h.maxOutput, onOverflow: cancel}
	errOut := &capWriter{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, errOut
	setProcessGroup(cmd)
	// After the command exits (or is killed), wait this long for its output
	// pipes to drain; a grandchild keeping them open cannot hang the call.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	switch {
	case out.overflow:
		return nil, fmt.Errorf("%w: the command wrote more than %d bytes", errOutputTooLarge, h.maxOutput)
	case parent.Err() != nil:
		return nil, fmt.Errorf("the call was cancelled: %w", parent.Err())
	case ctx.Err() != nil:
		return nil, fmt.Errorf("the command did not finish within %s", h.timeout)
	case err != nil:
		var ee *exec.ExitError
		msg := strings.TrimSpace(errOut.buf.String())
		if errors.As(err, &ee) && ee.Exited() {
			if msg != "" {
				return nil, fmt.Errorf("the command exited with status %d: %s", ee.ExitCode(), msg)
			}
			return nil, fmt.Errorf("the command exited with status %d", ee.ExitCode())
		}
		return nil, fmt.Errorf("the command failed: %v", err)
	}
	return &Output{Body: out.buf.Bytes()}, nil
}

func (*execHandler) Close() {}

// capWriter keeps up to max bytes and notes an overflow (calling onOverflow
// once, which kills the command).
type capWriter struct {
	buf        bytes.Buffer
	max        int64
	overflow   bool
	onOverflow func()
}

func (w *capWriter) Write(p []byte) (int, error) {
	if w.overflow {
		return len(p), nil
	}
	if int64(w.buf.Len()+len(p)) > w.max {
		w.overflow = true
		if w.onOverflow != nil {
			w.onOverflow()
		}
		return len(p), nil
	}
	return w.buf.Write(p)
}

// httpHandler posts the arguments as JSON (see HTTPConfig). It owns an
// http.Client whose idle connections are closed with the generation.
type httpHandler struct {
	url       string
	headers   http.Header
	client    *http.Client
	transport *http.Transport
	max       int64
	timeout   time.Duration
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func newHTTPHandler(c *HTTPConfig, getenv func(string) (string, bool)) (*httpHandler, error) {
	hdr := http.Header{}
	for name, val := range c.Headers {
		var missing []string
		v := envRef.ReplaceAllStringFunc(val, func(ref string) string {
			n := envRef.FindStringSubmatch(ref)[1]
			s, ok := getenv(n)
			if !ok {
				missing = append(missing, n)
			}
			return s
		})
		if len(missing) > 0 {
			return nil, fmt.Errorf("header %s: environment variable %s is not set", name, strings.Join(missing, ", "))
		}
		hdr.Set(name, v)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &httpHandler{url: c.URL, headers: hdr, transport: tr, client: &http.Client{Transport: tr, Timeout: c.Timeout}, max: c.MaxResponse, timeout: c.Timeout}, nil
}

func (h *httpHandler) Call(ctx context.Context, args []byte) (*Output, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(args))
	if err != nil {
		return nil, err
	}
	for k, v := range h.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.5")
	resp, err := h.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("the call was cancelled: %w", ctx.Err())
		}
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			return nil, fmt.Errorf("the endpoint did not answer within %s", h.timeout)
		}
		return nil, fmt.Errorf("the request failed: %v", redactURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, h.max+1))
	if err != nil {
		return nil, fmt.Errorf("reading the response: %v", err)
	}
	if int64(len(body)) > h.max {
		return nil, fmt.Errorf("%w: the response has more than %d bytes", errOutputTooLarge, h.max)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 512 {
			msg = msg[:512] + "…"
		}
		return nil, fmt.Errorf("the endpoint answered %s: %s", resp.Status, msg)
	}
	return &Output{Body: body}, nil
}

// redactURL drops the URL from a *url.Error (it may carry credentials).
func redactURL(err error) error {
	type unwrapper interface{ Unwrap() error }
	if u, ok := err.(unwrapper); ok && u.Unwrap() != nil {
		return u.Unwrap()
	}
	return err
}

func (h *httpHandler) Close() { h.transport.CloseIdleConnections() }

// isJSON reports whether b is one JSON value (strictly).
func isJSON(b []byte) bool {
	_, err := canon.Parse(b)
	return err == nil
}
