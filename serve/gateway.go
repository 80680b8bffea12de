package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/handler"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
	"github.com/mcpctl/mcpctl/upstream"
)

// gateway is serve's side of the upstreams (docs/serve.md#gateway): the
// open connections, keyed by what they were started from, and the reloads
// their tool list changes started.
type gateway struct {
	mu     sync.Mutex
	conns  map[string]*upstream.Upstream // connKey → connection
	closed bool
	// started is set once New has built the server: changes signalled
	// before are kept in missed and reloaded then.
	started bool
	missed  map[string]bool
	// users counts, per connection key, the published generations not
	// released yet that forward over it (pinned sessions and in-flight
	// calls keep old generations): a connection is closed only at 0.
	users map[string]int
	// reloads counts the reloads upstreams' changes started (Close waits
	// for them).
	reloads sync.WaitGroup
	// starts counts the upstreams builds are starting, and the
	// duplicates they close (Close waits for them: a stdio upstream's
	// process ends before Close returns).
	starts sync.WaitGroup
}

// upstreamConns returns the connections of cfg's upstreams, starting the
// ones not open yet (each within its timeout; a failure is a located
// error). With refresh (SIGHUP, POST /reload) the open ones read their
// tool list again first.
func (s *Server) upstreamConns(cfg *serveconfig.Config, refresh bool) (map[string]*upstream.Upstream, map[string]string, error) {
	dir, err := filepath.Abs(filepath.Dir(cfg.Source))
	if err != nil {
		return nil, nil, err
	}
	conns, keys := map[string]*upstream.Upstream{}, map[string]string{}
	var errs []error
	for _, uc := range cfg.Upstreams {
		up, key, err := s.upstreamConn(uc, dir, refresh)
		if err != nil {
			p := uc.Pos
			errs = append(errs, &toolset.InputError{Source: p.File, Offset: -1, Line: p.Line, Col: p.Col, Msg: upstreamErrText(uc.Name, err), Err: err})
			continue
		}
		conns[uc.Name], keys[uc.Name] = up, key
	}
	return conns, keys, errors.Join(errs...)
}

// upstreamConn returns the open connection of uc or starts it.
func (s *Server) upstreamConn(uc *serveconfig.UpstreamConfig, dir string, refresh bool) (*upstream.Upstream, string, error) {
	opts, err := s.upstreamOptions(uc, dir)
	if err != nil {
		return nil, "", err
	}
	key := connKey(opts)
	up, err := s.openConn(key)
	if err != nil {
		return nil, "", err
	}
	if up != nil {
		if refresh {
			if err := up.Refresh(s.baseCtx); err != nil {
				s.log.Warn("upstream tools/list failed; its last list stays", "upstream", uc.Name, "error", err)
			}
		}
		return up, key, nil
	}
	defer s.gw.starts.Done()
	name := uc.Name
	opts.OnList = func() { s.upstreamChanged(name) }
	opts.Logger = s.log
	up, err = upstream.Start(s.baseCtx, opts)
	if err != nil {
		return nil, "", err
	}
	if s.hooks.upstreamStarted != nil {
		s.hooks.upstreamStarted(name)
	}
	kept, err := s.keepConn(key, up)
	if err != nil {
		// Closed here rather than in a goroutine of its own, which
		// nothing waited for: the server process could leave a stdio
		// upstream running after Close returned.
		up.Close()
	}
	return kept, key, err
}

// errServerClosing is the error of a build that would start an upstream
// while the server closes.
var errServerClosing = errors.New("the server is closing")

// openConn returns the open connection of key, or nil when the caller is
// to start it: then it counts the start (gateway.starts, which Close waits
// for) and the caller ends it with starts.Done.
func (s *Server) openConn(key string) (*upstream.Upstream, error) {
	s.gw.mu.Lock()
	defer s.gw.mu.Unlock()
	if s.gw.closed {
		return nil, errServerClosing
	}
	if up := s.gw.conns[key]; up != nil {
		return up, nil
	}
	s.gw.starts.Add(1)
	return nil, nil
}

// keepConn registers up, just started, as the connection of key, and
// returns it; or, when a concurrent build (an approval beside a reload)
// started key's first, closes up beside the caller (Close waits for it:
// a stdio server that ignores the end of its stdin takes two terminate
// delays) and returns that first one; or, when the server is closing, an
// error, for the caller to close up.
func (s *Server) keepConn(key string, up *upstream.Upstream) (*upstream.Upstream, error) {
	s.gw.mu.Lock()
	defer s.gw.mu.Unlock()
	if s.gw.closed {
		return nil, errServerClosing
	}
	if s.gw.conns == nil {
		s.gw.conns = map[string]*upstream.Upstream{}
	}
	if first := s.gw.conns[key]; first != nil {
		s.gw.starts.Go(up.Close)
		return first, nil
	}
	s.gw.conns[key] = up
	return up, nil
}

// upstreamOptions turns an upstreams entry into the options of its
// connection: a stdio command resolved as exec handlers resolve theirs,
// with the allowlisted environment; http headers read from the
// environment.
func (s *Server) upstreamOptions(uc *serveconfig.UpstreamConfig, dir string) (upstream.Options, error) {
	opts := upstream.Options{Name: uc.Name, Refresh: uc.Refresh, Timeout: uc.Timeout, StartTimeout: uc.StartTimeout, MinBackoff: s.opts.UpstreamBackoff, MaxBackoff: 4 * s.opts.UpstreamBackoff, ProtocolVersion: s.hooks.upstreamProtocol}
	if s.hooks.upstreamTransport != nil {
		if t := s.hooks.upstreamTransport(uc.Name); t != nil {
			opts.Transport = t
			return opts, nil
		}
	}
	if s.hooks.upstreamPipe != nil {
		if p := s.hooks.upstreamPipe(uc.Name); p != nil {
			opts.Pipe = p
			return opts, nil
		}
	}
	if uc.HTTP != nil {
		opts.URL, opts.Headers = uc.HTTP.URL, http.Header{}
		for h, env := range uc.HTTP.Headers {
			v, ok := s.opts.Getenv(env)
			if !ok {
				return opts, fmt.Errorf("header %s: environment variable %s is not set", h, env)
			}
			if err := serveconfig.CheckHeaderValue(v); err != nil {
				return opts, fmt.Errorf("header %s (from %s): %w", h, env, err)
			}
			opts.Headers.Set(h, v)
		}
		return opts, nil
	}
	argv, err := handler.ResolveCommand(uc.Stdio, dir, s.opts.Getenv)
	if err != nil {
		return opts, err
	}
	opts.Command, opts.Env, opts.Dir = argv, handler.AllowedEnv(uc.Env, s.opts.Getenv), dir
	return opts, nil
}

// connKey identifies a connection by everything it was started from.
func connKey(o upstream.Options) string {
	k := struct {
		Name, URL, Dir   string
		Command, Env     []string
		Headers          http.Header
		Refresh, Timeout int64
		StartTimeout     int64
		Test             bool
	}{o.Name, o.URL, o.Dir, o.Command, o.Env, o.Headers, int64(o.Refresh), int64(o.Timeout), int64(o.StartTimeout), o.Transport != nil}
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// upstreamChanged starts a reload for an upstream whose tool list changed
// (its list_changed, or a refresh poll).
func (s *Server) upstreamChanged(name string) {
	s.gw.mu.Lock()
	defer s.gw.mu.Unlock()
	if s.gw.closed {
		return
	}
	if !s.gw.started {
		if s.gw.missed == nil {
			s.gw.missed = map[string]bool{}
		}
		s.gw.missed[name] = true
		return
	}
	s.gw.reloads.Add(1)
	go func() {
		defer s.gw.reloads.Done()
		s.Reload(s.baseCtx, "upstream:"+name)
	}()
}

// startUpstreamReloads lets upstream changes reload the server (New calls
// it once the server is built) and reloads for those signalled before.
func (s *Server) startUpstreamReloads() {
	s.gw.mu.Lock()
	s.gw.started = true
	missed := sortedKeys(s.gw.missed)
	s.gw.missed = nil
	s.gw.mu.Unlock()
	for _, name := range missed {
		s.upstreamChanged(name)
	}
}

// pruneUpstreams closes the connections no published generation still
// uses (after each reload: a refused candidate's new connection, a removed
// or changed upstream once the generations serving it are released).
func (s *Server) pruneUpstreams() { s.closeUnused(false) }

// closeUnused closes the connections no unreleased published generation
// uses; retiredOnly keeps those never published (a build in progress may
// have just started them).
func (s *Server) closeUnused(retiredOnly bool) {
	s.gw.mu.Lock()
	var gone []*upstream.Upstream
	for key, up := range s.gw.conns {
		n, published := s.gw.users[key]
		if n == 0 && (published || !retiredOnly) && !s.blueUsesConn(key) {
			gone = append(gone, up)
			delete(s.gw.conns, key)
			delete(s.gw.users, key)
		}
	}
	s.gw.mu.Unlock()
	for _, up := range gone {
		up.Close()
	}
}

// useUpstreams counts g, being published, as a user of its connections.
func (s *Server) useUpstreams(g *Generation) {
	s.gw.mu.Lock()
	defer s.gw.mu.Unlock()
	if s.gw.users == nil {
		s.gw.users = map[string]int{}
	}
	for _, k := range g.upstreamKeys {
		s.gw.users[k]++
	}
}

// released is the onRelease of generations: a published generation's
// last reference is gone, so its connections lose a user (closed at the
// next reload when none is left).
func (s *Server) released(g *Generation) {
	if g.Version > 0 && len(g.upstreamKeys) > 0 {
		s.gw.mu.Lock()
		for _, k := range g.upstreamKeys {
			s.gw.users[k]--
		}
		if !s.gw.closed {
			s.gw.reloads.Add(1)
			go func() {
				defer s.gw.reloads.Done()
				s.closeUnused(true)
			}()
		}
		s.gw.mu.Unlock()
	}
	if s.hooks.onRelease != nil {
		s.hooks.onRelease(g)
	}
}

// closeUpstreams closes every connection and waits for the upstreams
// builds are starting (each closed once started: keepConn), the
// duplicates they close, and the reloads the connections started.
func (s *Server) closeUpstreams() {
	s.gw.mu.Lock()
	s.gw.closed = true
	conns := s.gw.conns
	s.gw.conns = nil
	s.gw.mu.Unlock()
	for _, up := range conns {
		up.Close()
	}
	s.gw.starts.Wait()
	s.gw.reloads.Wait()
}

// upstreamInput is one upstream of a candidate: the list served (its
// current one, or while quarantined the last accepted one) and, when
// quarantined, the translator to its current one.
type upstreamInput struct {
	cfg    *serveconfig.UpstreamConfig
	key    string
	served *toolset.Set
	tr     *translator
}

// withUpstreams returns cfg with the served tools of its upstreams
// appended, and the digest of every input of the candidate: equal digests
// build equal generations.
func withUpstreams(cfg *serveconfig.Config, ups []upstreamInput) (*serveconfig.Config, string) {
	if len(ups) == 0 {
		return cfg, cfg.Digest
	}
	full := *cfg
	full.Tools = append([]*serveconfig.ToolConfig(nil), cfg.Tools...)
	d := sha256.New()
	d.Write([]byte(cfg.Digest))
	for _, in := range ups {
		fmt.Fprintf(d, "\x00%s\x00%s\x00%s", in.cfg.Name, in.key, listDigest(in.served))
		state := ""
		if in.tr != nil {
			state = "quarantined:" + listDigest(in.tr.current)
			d.Write([]byte(state))
		}
		for _, t := range in.served.Tools {
			if in.cfg.Serves(t.Name) {
				full.Tools = append(full.Tools, upstreamTool(in, t, len(full.Tools), state))
			}
		}
	}
	return &full, hex.EncodeToString(d.Sum(nil))
}

// listDigest is the hex SHA-256 of a tool list's bytes.
func listDigest(set *toolset.Set) string {
	d := sha256.New()
	for _, t := range set.Tools {
		d.Write(t.Raw)
		d.Write([]byte{0})
	}
	return hex.EncodeToString(d.Sum(nil))
}

// upstreamTool is an upstream's tool as a tool entry of the config: the
// upstream's own bytes with the exposed name, the upstream's facade block
// for it, a handler forwarding under its real name, located at the
// upstreams entry.
func upstreamTool(in upstreamInput, t *toolset.Tool, index int, state string) *serveconfig.ToolConfig {
	uc := in.cfg
	v := t.Value.Clone()
	for i := range v.Members {
		if v.Members[i].Key == "name" {
			v.Members[i].Value = canon.Value{Kind: canon.String, Str: uc.Exposed(t.Name)}
		}
	}
	tc := &serveconfig.ToolConfig{Name: uc.Exposed(t.Name), Index: index, Value: v, Raw: canon.AppendOrdered(nil, &v), Pos: uc.Pos, Upstream: uc.Name,
		Handler: &serveconfig.HandlerConfig{Upstream: &serveconfig.UpstreamRef{Upstream: uc.Name, Tool: t.Name, Conn: in.key, State: state, Translator: in.tr}, Pos: uc.Pos}}
	if b, ok := uc.Facades[t.Name]; ok {
		tc.Facade = &b
	}
	return tc
}

// StateQuarantined is the state of a connected upstream whose current
// tool list the gate refused (upstream.Status.State in /status).
const StateQuarantined = "quarantined"

// upstreamCollector exports the upstreams' state to Prometheus:
// mcpctl_serve_upstream_state{upstream,state} (1 for the current state)
// and mcpctl_serve_upstream_restarts_total{upstream}.
type upstreamCollector struct{ s *Server }

var (
	upstreamStateDesc    = prometheus.NewDesc("mcpctl_serve_upstream_state", "Gateway upstreams by state (connected, restarting, quarantined, closed): 1 for the state the upstream is in.", []string{"upstream", "state"}, nil)
	upstreamRestartsDesc = prometheus.NewDesc("mcpctl_serve_upstream_restarts_total", "Restarts of a gateway upstream that went away.", []string{"upstream"}, nil)
)

func (c upstreamCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- upstreamStateDesc
	ch <- upstreamRestartsDesc
}

func (c upstreamCollector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.s.upstreamStatus() {
		ch <- prometheus.MustNewConstMetric(upstreamStateDesc, prometheus.GaugeValue, 1, st.Name, st.State)
		ch <- prometheus.MustNewConstMetric(upstreamRestartsDesc, prometheus.CounterValue, float64(st.Restarts), st.Name)
	}
}

// upstreamStatus is the state of the live generation's upstreams, by
// name.
func (s *Server) upstreamStatus() []upstream.Status {
	g := s.live.Load()
	if g == nil {
		return nil
	}
	served := map[string]int{}
	for _, t := range g.Config.Tools {
		if t.Upstream != "" {
			served[t.Upstream]++
		}
	}
	out := make([]upstream.Status, 0, len(g.conns))
	for name, up := range g.conns {
		st := up.Status()
		if g.quarantined[name] && st.State == upstream.StateConnected {
			st.State = StateQuarantined
		}
		st.Served = served[st.Name]
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// forwardHandler forwards a call to an upstream under the upstream's own
// tool name and returns its result unchanged.
type forwardHandler struct {
	up   *upstream.Upstream
	tool string
	// tr, while the upstream is quarantined, translates calls to its
	// current tools (nil: forwarded as they are).
	tr *translator
}

func (h *forwardHandler) Call(ctx context.Context, args []byte) (*handler.Output, error) {
	name := h.tool
	if h.tr != nil {
		var msg string
		if name, args, msg = h.tr.translate(h.tool, args); msg != "" {
			return &handler.Output{Result: errorResult(msg)}, nil
		}
	}
	params := &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)}
	dc := downstreamCall(ctx)
	var relay func(*mcp.ProgressNotificationParams)
	if dc != nil {
		params.Meta = dc.meta
		relay = dc.relay
	}
	res, err := h.up.Call(ctx, params, relay)
	if err != nil {
		return nil, err
	}
	res.Meta = callMeta(res.Meta)
	return &handler.Output{Result: res}, nil
}

// protocolMetaPrefix starts the _meta keys the MCP revision 2026-07-28
// reserves for the connection (protocol version, client and server info,
// capabilities): they describe one hop, so the gateway neither forwards a
// downstream's nor passes an upstream's on.
const protocolMetaPrefix = "io.modelcontextprotocol/"

// callMeta is m without the progress token and the connection's keys (nil
// when nothing is left): an mcp.Meta, or the fast path's undecoded one.
func callMeta[M ~map[string]V, V any](m M) M {
	var out M
	for k, v := range m {
		if k == "progressToken" || strings.HasPrefix(k, protocolMetaPrefix) {
			continue
		}
		if out == nil {
			out = M{}
		}
		out[k] = v
	}
	return out
}

// Close does nothing: the connection belongs to the server.
func (*forwardHandler) Close() {}

// downstream is what a forwarded call needs of the downstream request:
// its _meta (without the progress token) and where progress goes.
type downstream struct {
	meta  mcp.Meta
	relay func(*mcp.ProgressNotificationParams)
}

type downstreamKey struct{}

// progressNotifyTimeout bounds one relayed progress notification.
const progressNotifyTimeout = 5 * time.Second

// withDownstream puts the downstream request of a tools/call in ctx for
// a forwarding handler: the upstream's notifications/progress go to ss
// with the downstream's token.
func withDownstream(ctx context.Context, ss *mcp.ServerSession, req *mcp.CallToolRequest) context.Context {
	dc := &downstream{meta: callMeta(req.Params.Meta)}
	if tok := req.Params.GetProgressToken(); tok != nil && ss != nil {
		dc.relay = func(p *mcp.ProgressNotificationParams) {
			q := *p
			q.ProgressToken = tok
			// upstream.Call waits for it before it returns; ctx may have
			// ended by then (a cancelled call still relays what came).
			nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), progressNotifyTimeout)
			defer cancel()
			_ = ss.NotifyProgress(nctx, &q)
		}
	}
	return context.WithValue(ctx, downstreamKey{}, dc)
}

func downstreamCall(ctx context.Context) *downstream {
	dc, _ := ctx.Value(downstreamKey{}).(*downstream)
	return dc
}

// upstreamErrText is err's text naming the upstream once: an
// *upstream.Error names it already.
func upstreamErrText(name string, err error) string {
	if ue := (*upstream.Error)(nil); errors.As(err, &ue) && ue.Name == name {
		return err.Error()
	}
	return fmt.Sprintf("upstream %q: %v", name, err)
}
