package serveconfig

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/parallel"
)

// places maps JSON Pointers from the config's root to where their values
// (at) and, for object members, their keys (key) were written. The entries
// of the root's tools list, converted side by side, each have their own
// maps: tools[i] holds the pointers under /tools/i.
type places struct {
	at, key map[string]Pos
	tools   []*places
}

func newPlaces(size int) *places {
	return &places{at: make(map[string]Pos, size), key: make(map[string]Pos, size/2)}
}

// value returns where the value at ptr was written (nothing is known of
// a nil places).
func (pl *places) value(ptr string) (Pos, bool) {
	if pl == nil {
		return Pos{}, false
	}
	p, ok := pl.of(ptr).at[ptr]
	return p, ok
}

// memberKey returns where the key of the member at ptr was written.
func (pl *places) memberKey(ptr string) (Pos, bool) {
	if pl == nil {
		return Pos{}, false
	}
	p, ok := pl.of(ptr).key[ptr]
	return p, ok
}

// of returns the maps that hold ptr.
func (pl *places) of(ptr string) *places {
	rest, ok := strings.CutPrefix(ptr, "/tools/")
	if !ok || pl.tools == nil {
		return pl
	}
	i, _, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(i)
	if err != nil || n < 0 || n >= len(pl.tools) || pl.tools[n] == nil {
		return pl
	}
	return pl.tools[n]
}

// chargedSet is the set of includes whose values were added to the
// budget of a config load whose tools are converted side by side.
type chargedSet struct {
	mu sync.Mutex
	m  map[string]bool
}

// charge reports whether path is charged for the first time (always, for
// a nil set: a converter on its own counts its first reads itself).
func (s *chargedSet) charge(path string) bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[path] {
		return false
	}
	if s.m == nil {
		s.m = map[string]bool{}
	}
	s.m[path] = true
	return true
}

// onceReader reads each path once, however many converters ask: a load
// converted again after a failed side-by-side attempt sees the same bytes
// and does not wait on a slow file twice.
type onceReader struct {
	read func(path string) ([]byte, error)
	mu   sync.Mutex
	m    map[string]*readResult
}

type readResult struct {
	once sync.Once
	data []byte
	err  error
}

func (r *onceReader) file(path string) ([]byte, error) {
	r.mu.Lock()
	res := r.m[path]
	if res == nil {
		res = &readResult{}
		r.m[path] = res
	}
	r.mu.Unlock()
	res.once.Do(func() { res.data, res.err = r.read(path) })
	return res.data, res.err
}

// newConverter returns the converter of the config document doc whose
// includes read reads; sideBySide says whether it converts the entries of
// the tools list side by side (see toolItems).
func newConverter(doc *yaml.Node, read func(path string) ([]byte, error), sideBySide bool) *converter {
	c := &converter{readFile: read, budget: new(atomic.Int64)}
	if sideBySide {
		c.places, c.charged = newPlaces(0), &chargedSet{}
	} else {
		c.places = newPlaces(countNodes(doc))
	}
	c.budget.Add(int64(docAllowance(doc)))
	return c
}

// sideBySide reports whether the sequence at ptr is the root's tools list
// and this converter converts its entries side by side: it is not inside
// an include or an alias (whose nodes other entries may share), and it
// records places (a config load).
func (c *converter) sideBySide(ptr string) bool {
	return ptr == "/tools" && c.charged != nil && c.places != nil && len(c.stack) == 0 && len(c.expanding) == 0
}

// errSideBySide says that an entry of the tools list failed to convert
// side by side; the caller converts the document again, in order, so that
// the error reported is the one an in-order conversion meets first (an
// exhausted alias budget in particular).
var errSideBySide = errors.New("a tool entry failed to convert side by side")

// toolItems converts the entries of the tools list n, at ptr, on every
// core, each with a converter of its own (own places, own include chain)
// sharing the budget, the charged includes and the file reads. The
// includes read are listed in the order an in-order conversion reads
// them.
//
// The result is the in-order conversion's. Side by side, an include's
// share of the budget is added by whichever entry reads it first, which
// bounds the values produced as tightly (alias bombs stop early); then
// inOrderBudget replays the entries' spending and grants in order, as an
// in-order conversion meets them. When that order exhausts the budget, or
// an entry fails to convert, the caller converts the document in order,
// so that the error is the one met first.
func (c *converter) toolItems(n *yaml.Node, file, ptr string) (canon.Value, error) {
	start := c.budget.Load()
	kids := make([]*converter, len(n.Content))
	c.places.tools = make([]*places, len(kids))
	items := make([]canon.Value, len(kids))
	failed := make([]bool, len(kids))
	parallel.Each(len(kids), func(i int) {
		k := &converter{readFile: c.readFile, places: newPlaces(countNodes(n.Content[i])), budget: c.budget, charged: c.charged, entry: true, depth: c.depth}
		kids[i], c.places.tools[i] = k, k.places
		var err error
		items[i], err = k.value(n.Content[i], file, ptr+"/"+strconv.Itoa(i))
		failed[i] = err != nil
	})
	if slices.Contains(failed, true) {
		return canon.Value{}, errSideBySide
	}
	left, ok := c.inOrderBudget(start, kids)
	if !ok {
		return canon.Value{}, errSideBySide
	}
	c.budget.Store(left)
	for _, k := range kids {
		for _, f := range k.files {
			if _, ok := c.read1[f.Path]; !ok {
				if c.read1 == nil {
					c.read1 = map[string]int{}
				}
				c.read1[f.Path] = len(c.files)
				c.files = append(c.files, f)
			}
		}
	}
	return canon.Value{Kind: canon.Array, Items: items}, nil
}

// inOrderBudget returns the budget an in-order conversion has left after
// the entries kids, starting with start and the includes c read; ok is
// false when it would run out on the way. In order, an include's share is
// granted by the first entry that reads it; an entry's budget is lowest
// just before each grant and at its end.
func (c *converter) inOrderBudget(start int64, kids []*converter) (left int64, ok bool) {
	granted := map[string]bool{}
	for p := range c.read1 {
		granted[p] = true
	}
	left = start
	for _, k := range kids {
		for _, g := range k.grants {
			if granted[g.path] {
				continue
			}
			if left-g.at < 0 {
				return 0, false
			}
			granted[g.path] = true
			left += int64(g.n)
		}
		if left -= k.spent; left < 0 {
			return 0, false
		}
	}
	return left, true
}
