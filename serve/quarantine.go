package serve

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// ResultQuarantined is a reload whose candidate the gate refused because
// of upstream changes only: those upstreams are quarantined (their last
// accepted tools stay served, calls translated to their current ones), the
// rest of the candidate was published, and the refused candidate is
// pending (docs/serve.md#gateway).
const ResultQuarantined = admin.ResultQuarantined

// translator carries calls made to a quarantined upstream's accepted tools
// to its current ones: the declared facades (upstreams[].facades) and,
// with gate.upstream: auto-facade, the facade suggestions diff verified
// for the change, tried in that order (docs/serve.md#gateway).
type translator struct {
	cfg     *serveconfig.UpstreamConfig
	current *toolset.Set
	// facades are the declared blocks, then the verified suggestions.
	facades []facade.File
	changes []diff.Change
	targets map[string][]*callcheck.Tool // current tool name → checks, in the order of facades
}

// newTranslator diffs accepted against current (the upstream's own tool
// names) and prepares the checks of the current tools.
func newTranslator(uc *serveconfig.UpstreamConfig, accepted, current *toolset.Set, auto bool, now time.Time) *translator {
	rep := diff.Compare(accepted, current, diff.Options{Facades: uc.Facades, Verify: diff.DefaultVerify, Now: now})
	tr := &translator{cfg: uc, current: current, facades: []facade.File{uc.Facades}, changes: rep.Changes, targets: map[string][]*callcheck.Tool{}}
	if auto {
		tr.facades = append(tr.facades, rep.SuggestedFacades())
	}
	for _, t := range current.Tools {
		tr.targets[t.Name] = translationTargets(t, tr.facades)
	}
	return tr
}

// translationTargets are the checks a call is tried against, in order,
// before it goes to the current tool t: one per facade block of t in fs
// (one without a facade when none has a block).
func translationTargets(t *toolset.Tool, fs []facade.File) []*callcheck.Tool {
	in := t.Value.Get("inputSchema")
	c, err := schema.Compile(in)
	var out []*callcheck.Tool
	for _, f := range fs {
		if b, ok := f[t.Name]; ok {
			out = append(out, translationTarget(t.Name, in, c, err, &b))
		}
	}
	if len(out) == 0 {
		out = append(out, translationTarget(t.Name, in, c, err, nil))
	}
	return out
}

// translationTarget is one check against the current tool name: its
// input schema in, compiled to c (or failing with err), and facade b.
func translationTarget(name string, in *canon.Value, c *schema.Compiled, err error, b *facade.Block) *callcheck.Tool {
	ct := &callcheck.Tool{Name: name, Schema: in, Facade: b}
	if err != nil {
		ct.Err = fmt.Errorf("the upstream's current input schema of %q does not compile: %v", name, err)
		return ct
	}
	ct.Compiled = c
	return ct
}

// aliasTarget is the current tool an alias of a facade block routes the
// removed tool to ("" when none does), the declared blocks first.
func (tr *translator) aliasTarget(tool string) string {
	for _, f := range tr.facades {
		if t := f.AliasTarget(tool); t != "" {
			return t
		}
	}
	return ""
}

// translate turns a call valid against the accepted tool named tool into
// the call of the current contract: its tool name and arguments, or the
// text of the self-healing isError result, which names tools as the client
// calls them (exposed names). The checks of the target are tried in
// order; the first that does not reject the call decides.
func (tr *translator) translate(tool string, raw []byte) (name string, args []byte, msg string) {
	target := tool
	if tr.current.Lookup(tool) == nil {
		target = tr.aliasTarget(tool)
	}
	checks := tr.targets[target]
	if len(checks) == 0 {
		return "", nil, fmt.Sprintf("Upstream %q removed tool %q (%s) and no facade routes its calls; the tools it offers now: %s.",
			tr.cfg.Name, tr.cfg.Exposed(tool), tr.describe(tool), strings.Join(tr.exposedNames(), ", "))
	}
	v, err := canon.Parse(raw)
	if err != nil || v.Kind != canon.Object {
		return "", nil, "the arguments are not a JSON object" // validated before: a bug
	}
	var verdict callcheck.Verdict
	for _, t := range checks {
		verdict = callcheck.CheckCall(t, facade.Call{Tool: tool, Arguments: schema.Instance(&v).(map[string]any)}, nil)
		if verdict.Outcome != callcheck.Rejected {
			break
		}
	}
	switch verdict.Outcome {
	case callcheck.Rejected:
		return "", nil, fmt.Sprintf("Upstream %q changed tool %q (%s); this call cannot be translated to its new shape: %s",
			tr.cfg.Name, tr.cfg.Exposed(tool), tr.describe(tool), verdict.Message)
	case callcheck.Accepted:
		return target, raw, "" // as sent: the bytes the client wrote
	}
	out, err := json.Marshal(verdict.Call.Arguments)
	if err != nil {
		return "", nil, err.Error()
	}
	return target, out, ""
}

// exposedNames are the names the upstream's current tools are served
// under (tools.include and tools.exclude applied, prefixed).
func (tr *translator) exposedNames() []string {
	var out []string
	for _, n := range tr.current.Names() {
		if tr.cfg.Serves(n) {
			out = append(out, tr.cfg.Exposed(n))
		}
	}
	return out
}

// describe names the changes of tool, "rule at path" each.
func (tr *translator) describe(tool string) string {
	var parts []string
	for _, c := range tr.changes {
		if c.Tool != tool || c.Level == diff.Safe {
			continue
		}
		p := c.Rule
		if c.Path != "" {
			p += " at " + c.Path
		}
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return "changed"
	}
	return strings.Join(parts, "; ")
}

// quarantineFor returns the upstreams whose changes are all that refused
// a candidate (by name), or nil when a finding that needs permission is
// on a tool of the config: then the candidate is refused as a whole.
// Tools are attributed by the generations' configs.
func quarantineFor(findings []Finding, gens ...*Generation) map[string]bool {
	owner := map[string]string{}
	for _, g := range gens {
		if g == nil {
			continue
		}
		for _, t := range g.Config.Tools {
			if t.Upstream != "" {
				owner[t.Name] = t.Upstream
			}
		}
	}
	return quarantineOwned(findings, owner)
}

// quarantineOwned is quarantineFor with owner mapping exposed tool names
// to their upstreams.
func quarantineOwned(findings []Finding, owner map[string]string) map[string]bool {
	hold := map[string]bool{}
	for _, f := range findings {
		if !f.NeedsPermission || f.AllowedBy != "" {
			continue
		}
		up, ok := owner[f.Tool]
		if !ok {
			return nil
		}
		hold[up] = true
	}
	if len(hold) == 0 {
		return nil
	}
	return hold
}

// gateUpstreams gates cand against live (the caller holds pubMu). When
// the gate refuses it for findings on upstream tools only, those
// upstreams are quarantined: cand stays pending (mcpctl approve publishes
// it), and a second candidate that serves their last accepted lists, with
// calls translated to their current ones, is gated and, passing,
// published, so other upstreams' and the config's safe changes are not
// held up by them.
func (s *Server) gateUpstreams(live, cand *Generation, now time.Time, res *ReloadResult, trigger string) {
	base := cand.base
	if s.gated(live.lock(), live, cand, now, res, trigger) {
		return
	}
	hold := quarantineFor(res.Findings, live, cand)
	if hold == nil || base == nil {
		return
	}
	refused := blockingOf(res.Findings)
	alt, unchanged, err := s.buildCandidate(base, false, live.acceptedLists(hold))
	if err != nil {
		s.logRefused(false, trigger, maxLevel(refused).String(), refused, cand.Fingerprint)
		s.log.Error("cannot build the quarantined candidate; the live generation stays", "error", err)
		return
	}
	names := sortedKeys(hold)
	if !unchanged {
		var ares ReloadResult
		s.quarantining = cand.Fingerprint // stays pending when alt is published
		ok := s.gated(live.lock(), live, alt, now, &ares, trigger)
		s.quarantining = ""
		if !ok {
			s.logRefused(false, trigger, maxLevel(refused).String(), refused, cand.Fingerprint)
			return
		}
		res.Version, res.Fingerprint, res.Changed = ares.Version, ares.Fingerprint, ares.Changed
	}
	res.Result, res.Quarantined, res.Cause = ResultQuarantined, names, nil
	res.Reason = fmt.Sprintf("%s; upstream(s) %s quarantined: their last accepted tools stay served and calls are translated; the refused candidate %s is pending", res.Reason, strings.Join(names, ", "), cand.Fingerprint)
	s.log.Warn("upstream change refused by the gate: quarantined", "trigger", trigger, "upstreams", names,
		"findings", findingSummaries(refused), "pending", cand.Fingerprint)
}

// quarantinable reports whether gateUpstreams quarantines upstreams for
// cand's refusal by live (a reload whose findings that need permission
// are all on upstream tools), and so logs that refusal itself.
func (s *Server) quarantinable(live, cand *Generation, findings []Finding) bool {
	return live != nil && cand.base != nil && s.quarantining == "" && quarantineFor(findings, live, cand) != nil
}

// maxLevel is the highest level of fs.
func maxLevel(fs []Finding) diff.Level {
	var l diff.Level
	for _, f := range fs {
		l = max(l, f.Level)
	}
	return l
}

// blockingOf are the findings that need a permission none gave.
func blockingOf(findings []Finding) []Finding {
	var out []Finding
	for _, f := range findings {
		if f.NeedsPermission && f.AllowedBy == "" {
			out = append(out, f)
		}
	}
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// docRules are the rules of changes to what a tool says about itself:
// title, description and annotations (held with gate.descriptions: hold).
var docRules = map[string]bool{
	"title-changed": true, "description-changed": true, "description-deprecated": true,
	"annotation-more-cautious": true, "annotation-less-cautious": true, "annotation-title-changed": true, "annotation-changed": true,
}

// holdDescriptions makes, with gate.descriptions: hold, every change of
// an upstream tool's title, description or annotations need permission
// (docs/serve.md#gateway, rug pulls). Tools are matched as diff matches
// them, renames included (diff compares a renamed tool with the tool it
// replaced), so a rename does not launder a changed text.
func holdDescriptions(d *gateDecision, live, cand *Generation, allowBreaking bool) {
	if cand.Config.Gate.Descriptions != serveconfig.DescriptionsHold {
		return
	}
	owned := map[string]bool{}
	for _, g := range []*Generation{live, cand} {
		if g == nil {
			continue
		}
		for _, t := range g.Config.Tools {
			owned[t.Name] = owned[t.Name] || t.Upstream != ""
		}
	}
	for i := range d.Findings {
		f := &d.Findings[i]
		if !docRules[f.Rule] || !owned[f.Tool] || f.NeedsPermission {
			continue
		}
		f.NeedsPermission = true
		f.Message += "; needs permission: gate.descriptions is hold, so an upstream tool's title, description and annotations change only when approved"
		d.Blocking = append(d.Blocking, *f)
	}
	d.Refused = len(d.Blocking) > 0 && !allowBreaking
}
