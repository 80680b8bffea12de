package cmd

import (
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/internal/mcpclient"
)

// SourceTokenEnv names the environment variable holding a bearer token for
// http(s) sources (when --token-file is not given).
const SourceTokenEnv = "MCPCTL_SOURCE_TOKEN"

// liveFlags are the flags of every command that may start or reach a
// server: snapshot, diff, lint, canon and replay.
type liveFlags struct {
	Headers   []string
	TokenFile string
	Timeout   time.Duration

	status  *statusLine // made by the first options call
	secrets []string    // header values, hidden in errors
}

func (l *liveFlags) register(f *pflag.FlagSet) {
	f.StringArrayVar(&l.Headers, "header", nil, "with an http(s) source: send this header, 'Name: value' (repeatable); values are never printed")
	f.StringVar(&l.TokenFile, "token-file", "", "with an http(s) source: send the bearer token in FILE as Authorization (default: $"+SourceTokenEnv+")")
	f.DurationVar(&l.Timeout, "timeout", mcpclient.DefaultLiveTimeout, "how long starting or reaching a server, initialize and listing its tools may take")
}

// options returns the mcpclient.LiveOptions of the flags: the headers (and
// the token as "Authorization: Bearer …"), the timeout, the server's stderr
// and warnings on s.ErrOut and, when s.ErrOut is a terminal, a status line.
// label prefixes the status (diff loads two sources at once).
func (l *liveFlags) options(s *Streams, label string) (mcpclient.LiveOptions, error) {
	if l.Timeout <= 0 {
		return mcpclient.LiveOptions{}, usageErrorf("--timeout must be positive, got %s", l.Timeout)
	}
	h, err := l.header()
	if err != nil {
		return mcpclient.LiveOptions{}, err
	}
	if l.status == nil {
		l.status = statusFor(s)
	}
	st := l.status
	return mcpclient.LiveOptions{
		Timeout:  l.Timeout,
		Headers:  h,
		Stderr:   st.writer(s.ErrOut),
		Progress: st.progress(label),
		Warn:     st.warn,
	}, nil
}

// finish erases the status line once the sources are loaded, and returns
// err with every header value replaced by [redacted] in its message (a
// server may echo a header back in an error).
func (l *liveFlags) finish(err error) error {
	if l.status != nil {
		l.status.clear()
	}
	return mcpclient.Redact(err, l.secrets)
}

// fixturesOptions is options for replay --live.
func (l *liveFlags) fixturesOptions(s *Streams) (fixtures.LiveOptions, error) {
	o, err := l.options(s, "")
	if err != nil {
		return fixtures.LiveOptions{}, err
	}
	return fixtures.LiveOptions{Timeout: o.Timeout, Headers: o.Headers, Stderr: o.Stderr, Warn: o.Warn, Progress: o.Progress}, nil
}

// header parses --header values and adds the token of --token-file or
// $MCPCTL_SOURCE_TOKEN. Errors never quote a value.
func (l *liveFlags) header() (http.Header, error) {
	h := http.Header{}
	for i, v := range l.Headers {
		name, value, ok := strings.Cut(v, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || !mcpclient.IsHeaderName(name) || strings.ContainsAny(value, "\r\n") {
			return nil, usageErrorf("--header number %d: want 'Name: value' with a header name of letters, digits and !#$%%&'*+-.^_`|~ (the value is not shown)", i+1)
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(name), value)
	}
	l.secrets = mcpclient.HeaderSecrets(h)
	token, err := l.token()
	if err != nil || token == "" {
		return h, err
	}
	if h.Get("Authorization") != "" {
		if l.TokenFile != "" {
			return nil, usageErrorf("--header Authorization and --token-file both give credentials; give one")
		}
		return h, nil // an explicit header wins over the environment
	}
	h.Set("Authorization", "Bearer "+token)
	l.secrets = mcpclient.HeaderSecrets(h)
	return h, nil
}

func (l *liveFlags) token() (string, error) {
	if l.TokenFile == "" {
		return strings.TrimSpace(os.Getenv(SourceTokenEnv)), nil
	}
	b, err := os.ReadFile(l.TokenFile)
	if err != nil {
		return "", fmt.Errorf("%w: --token-file: %w", ErrUsage, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", usageErrorf("--token-file %s is empty", l.TokenFile)
	}
	return tok, nil
}

// statusLine shows what a live fetch waits for on one terminal line of
// stderr, rewritten in place ("\r" and erase to the end of the line), and
// clears it before anything else is written there. Off a terminal it
// writes nothing.
type statusLine struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	shown bool
}

// statusFor returns the status line of s.ErrOut: on only when it is a
// terminal.
func statusFor(s *Streams) *statusLine {
	return &statusLine{w: s.ErrOut, on: IsTerminal(s.ErrOut)}
}

// progress returns a LiveOptions.Progress that shows label and the status,
// or nil when the line is off.
func (l *statusLine) progress(label string) func(string) {
	if !l.on {
		return nil
	}
	if label != "" {
		label += ": "
	}
	return func(status string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		fmt.Fprintf(l.w, "\r\x1b[Kmcpctl: %s%s", label, status)
		l.shown = true
	}
}

// clearLocked erases a shown status (the caller holds mu).
func (l *statusLine) clearLocked() {
	if l.shown {
		io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}

// clear erases a shown status.
func (l *statusLine) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
}

// warn prints a warning on its own line.
func (l *statusLine) warn(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	fmt.Fprintf(l.w, "mcpctl: warning: %s\n", msg)
}

// writer returns w (a server's stderr goes there) clearing the status first.
func (l *statusLine) writer(w io.Writer) io.Writer { return statusWriter{l, w} }

type statusWriter struct {
	l *statusLine
	w io.Writer
}

func (s statusWriter) Write(p []byte) (int, error) {
	s.l.mu.Lock()
	defer s.l.mu.Unlock()
	s.l.clearLocked()
	return s.w.Write(p)
}
