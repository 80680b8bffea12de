package mcpclient

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// progressLog counts, for each progress token watched, the server's
// notifications/progress (MCP 2025-11-25 basic/utilities/progress) read on
// the connection and, once the response to the request that carried the
// token is read, how many came before it. Messages are counted where the
// connection reads them, in wire order: the go-sdk client hands
// notifications to their handler later, and a response can overtake them.
type progressLog struct {
	mu      sync.Mutex
	byToken map[string]*progressCount
	byID    map[any]*progressCount // request ID → its token's count
}

type progressCount struct {
	read     int // notifications read so far
	before   int // notifications read before the response
	answered bool
}

// A ProgressWatch counts the server's notifications/progress for one
// progress token (see Lister.WatchProgress).
type ProgressWatch struct {
	l   *progressLog
	tok string
	c   *progressCount
}

// Before returns how many notifications/progress for the token the
// connection read before the response to the request that carried it, and
// whether that response has been read.
func (w *ProgressWatch) Before() (int, bool) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	return w.c.before, w.c.answered
}

// Stop ends the watch.
func (w *ProgressWatch) Stop() {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	delete(w.l.byToken, w.tok)
	for id, c := range w.l.byID {
		if c == w.c {
			delete(w.l.byID, id) // a request never answered
		}
	}
}

func (l *progressLog) watch(tok string) *ProgressWatch {
	c := &progressCount{}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byToken == nil {
		l.byToken, l.byID = map[string]*progressCount{}, map[any]*progressCount{}
	}
	l.byToken[tok] = c
	return &ProgressWatch{l: l, tok: tok, c: c}
}

// watching reports whether any token is watched (messages are decoded only
// then).
func (l *progressLog) watching() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.byToken) > 0
}

// sent notes the ID of a tools/call request that carries a watched token.
func (l *progressLog) sent(req *jsonrpc.Request) {
	if !req.IsCall() || req.Method != "tools/call" || !l.watching() {
		return
	}
	if tok, ok := progressToken(req.Params); ok {
		l.mu.Lock()
		defer l.mu.Unlock()
		if c := l.byToken[tok]; c != nil {
			l.byID[req.ID.Raw()] = c
		}
	}
}

// read counts a notifications/progress for a watched token.
func (l *progressLog) read(req *jsonrpc.Request) {
	if req.IsCall() || req.Method != "notifications/progress" || !l.watching() {
		return
	}
	if tok, ok := progressToken(req.Params); ok {
		l.mu.Lock()
		defer l.mu.Unlock()
		if c := l.byToken[tok]; c != nil {
			c.read++
		}
	}
}

// answered records, for the request resp answers, how many notifications
// came before it.
func (l *progressLog) answered(resp *jsonrpc.Response) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.byID[resp.ID.Raw()]; c != nil {
		delete(l.byID, resp.ID.Raw())
		c.before, c.answered = c.read, true
	}
}

// progressToken is the string progress token of a request's params (its
// _meta.progressToken) or of a notifications/progress (its progressToken).
func progressToken(params json.RawMessage) (string, bool) {
	var p struct {
		Meta struct {
			Token any `json:"progressToken"`
		} `json:"_meta"`
		Token any `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	if tok, ok := p.Token.(string); ok {
		return tok, true
	}
	tok, ok := p.Meta.Token.(string)
	return tok, ok
}
