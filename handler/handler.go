package handler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/httptransport"
	"github.com/mcpctl/mcpctl/internal/proc"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/internal/textcut"
	"github.com/mcpctl/mcpctl/recording"
	"github.com/mcpctl/mcpctl/serveconfig"
)

// Handler executes one tool call. args is the validated
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
	// Result, when set, is the call's result as is (an upstream's,
	// passed through unchanged: content, structuredContent, isError,
	// _meta); Body is then unused.
	Result *mcp.CallToolResult
}

// Build makes the exec, http or static handler of one tool. dir is the config's folder
// (relative commands and working folders are resolved against it); getenv
// reads the server's environment; pool (nil: no limits) is the server's
// account of exec calls.
func Build(h *serveconfig.HandlerConfig, dir string, getenv func(string) (string, bool), pool *Pool) (Handler, error) {
	switch {
	case h.Exec != nil:
		return newExecHandler(h.Exec, dir, getenv, pool)
	case h.HTTP != nil:
		return newHTTPHandler(h.HTTP, getenv)
	case h.Static != nil:
		if h.Static.JSON != nil {
			return Static{Body: canon.AppendOrdered(nil, h.Static.JSON)}, nil
		}
		return Static{Body: []byte(h.Static.Text)}, nil
	}
	return nil, errors.New("handler needs one of exec, http or static")
}

// Static answers every call with the same output: Body, the static
// block's JSON (as written) or text.
type Static struct{ Body []byte }

func (s Static) Call(context.Context, []byte) (*Output, error) {
	return &Output{Body: s.Body}, nil
}
func (Static) Close() {}

// execHandler runs a command without a shell (see ExecConfig), each call
// in a process group of its own: when the command exits, what it left
// running in its group is killed, so a background child holding standard
// output open neither outlives the call nor holds it up. Calls wait for a
// slot of the tool (slots) and of the server (pool) first.
type execHandler struct {
	argv      []string
	dir       string
	env       []string
	timeout   time.Duration
	maxOutput int64
	pool      *Pool
	slots     chan struct{}
}

func newExecHandler(c *serveconfig.ExecConfig, dir string, getenv func(string) (string, bool), pool *Pool) (*execHandler, error) {
	argv, err := ResolveCommand(c.Command, dir, getenv)
	if err != nil {
		return nil, err
	}
	wd := dir
	if c.Dir != "" {
		wd = c.Dir
		if !filepath.IsAbs(wd) {
			wd = filepath.Join(dir, wd)
		}
	}
	n := c.Concurrency
	if n <= 0 {
		n = serveconfig.DefaultToolConcurrency
	}
	return &execHandler{argv: argv, dir: wd, env: AllowedEnv(c.Env, getenv), timeout: c.Timeout, maxOutput: c.MaxOutput, pool: pool, slots: make(chan struct{}, n)}, nil
}

// ResolveCommand returns command with its program resolved as exec
// handlers and stdio upstreams resolve it: an absolute path as is, a
// relative path with a slash against dir, a bare name through PATH; the
// program must be an executable file.
func ResolveCommand(command []string, dir string, getenv func(string) (string, bool)) ([]string, error) {
	argv := append([]string(nil), command...)
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
		return nil, fmt.Errorf("command %q: %v", command[0], safefile.UnwrapPath(err))
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("command %q: %s is not an executable file", command[0], prog)
	}
	argv[0] = prog
	return argv, nil
}

// AllowedEnv is the environment of a command started by mcpctl: PATH and
// the variables names lists, as NAME=VALUE, when set; nothing else.
func AllowedEnv(names []string, getenv func(string) (string, bool)) []string {
	env := []string{}
	seen := map[string]bool{}
	for _, n := range append([]string{"PATH"}, names...) {
		if seen[n] {
			continue
		}
		seen[n] = true
		if v, ok := getenv(n); ok {
			env = append(env, n+"="+v)
		}
	}
	return env
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

// ErrOutputTooLarge is returned when a handler's output exceeds its cap.
var ErrOutputTooLarge = errors.New("output too large")

func (h *execHandler) Call(parent context.Context, args []byte) (*Output, error) {
	// The timeout bounds the whole call, the wait for a slot included.
	ctx, cancel := context.WithTimeout(parent, h.timeout)
	defer cancel()
	release, err := h.pool.acquire(ctx, h.slots)
	if err != nil {
		if parent.Err() != nil {
			return nil, fmt.Errorf("the call was cancelled: %w", parent.Err())
		}
		return nil, err
	}
	defer release()
	out := &capWriter{max: h.maxOutput, onOverflow: cancel}
	errOut := &capWriter{max: 4 << 10}
	err = h.run(ctx, args, out, errOut)
	switch {
	case errors.Is(err, errExecShutdown):
		return nil, err
	case out.overflow:
		return nil, fmt.Errorf("%w: the command wrote more than %d bytes", ErrOutputTooLarge, h.maxOutput)
	case parent.Err() != nil:
		return nil, fmt.Errorf("the call was cancelled: %w", parent.Err())
	case ctx.Err() != nil:
		return nil, &TimeoutError{what: "the command did not finish", d: h.timeout}
	case err != nil:
		return nil, exitError(err, errOut)
	}
	return &Output{Body: out.buf.Bytes()}, nil
}

// TimeoutError is returned when a handler did not finish within its
// timeout.
type TimeoutError struct {
	what string
	d    time.Duration
}

func (e *TimeoutError) Error() string { return fmt.Sprintf("%s within %s", e.what, e.d) }

// exitError words the failure of a command that ran.
func exitError(err error, errOut *capWriter) error {
	var ee *exec.ExitError
	msg := strings.TrimSpace(errOut.buf.String())
	if errors.As(err, &ee) && ee.Exited() {
		if msg != "" {
			return fmt.Errorf("the command exited with status %d: %s", ee.ExitCode(), msg)
		}
		return fmt.Errorf("the command exited with status %d", ee.ExitCode())
	}
	return fmt.Errorf("the command failed: %v", err)
}

// execDrain is how long, after a command exited and its process group was
// killed, its output may take to reach end of file and its input to be
// written (a process that left the group may hold them); then they are
// closed.
const execDrain = time.Second

// run runs the command in a process group of its own with args on its
// standard input, copying its output to out and errOut. When the command
// exits, the rest of its group is killed. Its standard streams are pipes
// of our own, so Wait returns when the command exits, whoever holds them;
// they are drained for at most execDrain more.
func (h *execHandler) run(ctx context.Context, args []byte, out, errOut io.Writer) error {
	cmd := exec.CommandContext(ctx, h.argv[0], h.argv[1:]...)
	cmd.Dir = h.dir
	cmd.Env = h.env
	cmd.WaitDelay = execDrain
	proc.SetGroup(cmd)
	pipes, err := commandPipes(cmd, args, out, errOut)
	if err != nil {
		return err
	}
	defer func() {
		for _, p := range pipes {
			p.finish(execDrain)
		}
	}()
	err = cmd.Start()
	for _, p := range pipes {
		p.started()
	}
	if err != nil {
		return err
	}
	if err := h.pool.started(cmd); err != nil {
		_ = cmd.Wait()
		return err
	}
	err = cmd.Wait()
	proc.KillGroup(cmd)
	h.pool.ended(cmd)
	return err
}

// commandPipes gives cmd its standard streams: args as its input, its
// output and errors copied to out and errOut.
func commandPipes(cmd *exec.Cmd, args []byte, out, errOut io.Writer) ([]*pipe, error) {
	var pipes []*pipe
	for _, mk := range []func() (*pipe, error){
		func() (*pipe, error) { return inputPipe(args) },
		func() (*pipe, error) { return outputPipe(out) },
		func() (*pipe, error) { return outputPipe(errOut) },
	} {
		p, err := mk()
		if err != nil {
			for _, q := range pipes {
				q.started()
				q.finish(0)
			}
			return nil, err
		}
		pipes = append(pipes, p)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes[0].child, pipes[1].child, pipes[2].child
	return pipes, nil
}

// pipe is one standard stream of a command, copied by a goroutine of ours.
type pipe struct {
	child *os.File // the end the command gets
	ours  *os.File // the end the goroutine reads or writes
	done  chan struct{}
}

// inputPipe writes data to the command, then closes its input.
func inputPipe(data []byte) (*pipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &pipe{child: r, ours: w, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		_, _ = w.Write(data)
		_ = w.Close()
	}()
	return p, nil
}

// outputPipe copies what the command writes to dst.
func outputPipe(dst io.Writer) (*pipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &pipe{child: w, ours: r, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		_, _ = io.Copy(dst, r)
	}()
	return p, nil
}

// started closes our copy of the command's end (the command has its own,
// or never started).
func (p *pipe) started() { _ = p.child.Close() }

// finish waits for the copy to end (end of file, or all written), at most
// d; then it stops it.
func (p *pipe) finish(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = p.ours.SetDeadline(time.Now())
		<-p.done
	}
	_ = p.ours.Close()
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
//
// Redirects are followed on the request's origin (scheme, host and port)
// only: a redirect elsewhere is an error, so the arguments and the headers
// never reach another host. The body of an error response is passed to the
// client (shortened) only when the request carries no secret: no header
// built from the environment or named like a secret (Authorization,
// X-API-Key, …; see recording.LooksSecret), no credentials in the url (a
// user, a query parameter named like a secret): an error page may echo the
// request, and a secret must not reach the client that way.
type httpHandler struct {
	url       string
	headers   http.Header
	client    *http.Client
	transport *http.Transport
	max       int64
	timeout   time.Duration
	// secret: a header is secret (see above).
	secret bool
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func newHTTPHandler(c *serveconfig.HTTPConfig, getenv func(string) (string, bool)) (*httpHandler, error) {
	u, err := parseEndpoint(c.URL)
	if err != nil {
		return nil, err
	}
	hdr := http.Header{}
	secret := urlHasSecret(u)
	for name, val := range c.Headers {
		v, err := expandHeader(name, val, getenv)
		if err != nil {
			return nil, err
		}
		secret = secret || envRef.MatchString(val) || recording.LooksSecret(name)
		hdr.Set(name, v)
	}
	tr := httptransport.New()
	client := &http.Client{Transport: tr, Timeout: c.Timeout, CheckRedirect: sameOriginRedirect}
	return &httpHandler{url: c.URL, headers: hdr, transport: tr, client: client, max: c.MaxResponse, timeout: c.Timeout, secret: secret}, nil
}

// errEndpointURL is the error of an http handler's url that no request can
// be made of.
var errEndpointURL = errors.New("url is not an http(s) URL a request can be made of (RFC 3986: no control characters or spaces, a host)")

// parseEndpoint parses an http handler's url. Its error never quotes the
// url, which may hold credentials.
func parseEndpoint(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("%w: %v", errEndpointURL, err)
	}
	if u.Host == "" || strings.ContainsRune(raw, ' ') {
		return nil, errEndpointURL
	}
	return u, nil
}

// urlHasSecret reports whether u carries credentials: a user (and
// password), or a query parameter named like a secret ("api_key").
func urlHasSecret(u *url.URL) bool {
	if u.User != nil {
		return true
	}
	for name := range u.Query() {
		if recording.LooksSecret(name) {
			return true
		}
	}
	return false
}

// expandHeader replaces each ${NAME} in the value of header name by the
// environment variable NAME. A variable that is unset, or whose value
// cannot be sent in a header field (a line break, a control character),
// is an error naming the variable, never showing its value.
func expandHeader(name, val string, getenv func(string) (string, bool)) (string, error) {
	var missing, bad []string
	v := envRef.ReplaceAllStringFunc(val, func(ref string) string {
		n := envRef.FindStringSubmatch(ref)[1]
		s, ok := getenv(n)
		switch {
		case !ok:
			missing = append(missing, n)
		case serveconfig.CheckHeaderValue(s) != nil:
			bad = append(bad, n)
		}
		return s
	})
	switch {
	case len(missing) > 0:
		return "", fmt.Errorf("header %s: environment variable %s is not set", name, strings.Join(missing, ", "))
	case len(bad) > 0:
		return "", fmt.Errorf("header %s: environment variable %s: %w", name, strings.Join(bad, ", "), serveconfig.ErrHeaderValue)
	}
	return v, nil
}

// errCrossOriginRedirect is returned when an endpoint redirects to another
// scheme, host or port.
var errCrossOriginRedirect = errors.New("the endpoint redirected to another host; redirects are followed on the same scheme, host and port only")

// sameOriginRedirect is the http handler's redirect policy: at most 10
// redirects, each to the origin of the first request.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if origin(req.URL) != origin(via[0].URL) {
		return fmt.Errorf("%w (to %s)", errCrossOriginRedirect, origin(req.URL))
	}
	return nil
}

// origin is u's scheme://host:port, lower case, the port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port))
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
			return nil, &TimeoutError{what: "the endpoint did not answer", d: h.timeout}
		}
		return nil, fmt.Errorf("the request failed: %v", redactURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, h.max+1))
	if err != nil {
		return nil, fmt.Errorf("reading the response: %v", err)
	}
	if int64(len(body)) > h.max {
		return nil, fmt.Errorf("%w: the response has more than %d bytes", ErrOutputTooLarge, h.max)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, h.statusError(resp.Status, body)
	}
	return &Output{Body: body}, nil
}

// statusError words an error response: its status, and its body (up to
// 512 bytes) unless the request carried a secret header (see httpHandler).
func (h *httpHandler) statusError(status string, body []byte) error {
	if h.secret {
		return fmt.Errorf("the endpoint answered %s (its body is not shown: the request carried secret headers, which an error page may echo)", status)
	}
	msg := textcut.Cut(strings.ToValidUTF8(strings.TrimSpace(string(body)), ""), 512)
	return fmt.Errorf("the endpoint answered %s: %s", status, msg)
}

// redactURL drops the URL of the *url.Error in err's chain (it may carry
// credentials), keeping the cause; an error without one is returned as is.
func redactURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

func (h *httpHandler) Close() { h.transport.CloseIdleConnections() }
