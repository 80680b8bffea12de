package report

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/mcpctl/mcpctl/diff"
)

// SARIF identification: the 2.1.0 schema as published by SchemaStore (the
// OASIS standard's JSON schema) and mcpctl's home.
const (
	sarifSchema    = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion   = "2.1.0"
	informationURI = "https://github.com/mcpctl/mcpctl"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool      `json:"tool"`
	Results    []sarifResult  `json:"results"`
	Properties map[string]any `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	ShortDescription     *sarifText         `json:"shortDescription,omitempty"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
	Properties           sarifRuleProps     `json:"properties"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags      []string       `json:"tags"`
	Direction diff.Direction `json:"direction,omitempty"`
}

type sarifResult struct {
	RuleID       string             `json:"ruleId"`
	RuleIndex    *int               `json:"ruleIndex,omitempty"`
	Level        string             `json:"level"`
	Message      sarifText          `json:"message"`
	Locations    []sarifLocation    `json:"locations"`
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
	Properties   sarifResultProps   `json:"properties"`
}

type sarifLocation struct {
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// sarifResultProps carries the finding's mcpctl fields (SARIF §3.8
// property bags).
type sarifResultProps struct {
	Tool        string           `json:"tool"`
	Direction   diff.Direction   `json:"direction"`
	Pointer     string           `json:"pointer"`
	MCPCtlLevel diff.Level       `json:"mcpctlLevel"`
	Old         json.RawMessage  `json:"old,omitempty"`
	New         json.RawMessage  `json:"new,omitempty"`
	Witness     json.RawMessage  `json:"witness,omitempty"`
	Facade      *diff.Suggestion `json:"facade,omitempty"`
	Notice      *string          `json:"notice,omitempty"`
	Covered     bool             `json:"covered,omitempty"`
	Undecided   bool             `json:"undecided,omitempty"`
	RuleBug     bool             `json:"ruleBug,omitempty"`
	Calls       *int             `json:"calls,omitempty"`
	Unused      bool             `json:"unused,omitempty"`
}

// sarifLevel maps mcpctl levels to SARIF result levels (SARIF §3.27.10):
// breaking → error, facade → warning, safe → note.
func sarifLevel(l diff.Level) string {
	switch l {
	case diff.Breaking:
		return "error"
	case diff.Facade:
		return "warning"
	case diff.Safe:
		return "note"
	}
	return "none"
}

// SARIF writes the report as a SARIF 2.1.0 log (OASIS Static Analysis
// Results Interchange Format): one run whose tool.driver lists the rule
// catalog (opts.Rules, default diff.Rules()) with purpose, default level
// and tags, and one result per finding with ruleId, level (breaking →
// error, facade → warning, covered facade and safe → note), message and a
// logical location whose fullyQualifiedName is TOOL plus the JSON Pointer
// inside the tool object ("search/inputSchema/properties/mode"). Ignored
// findings carry an external suppression with the ignore's reason.
func SARIF(w io.Writer, r *diff.Report, opts Options) error {
	driver, index := sarifCatalog(opts)
	results := []sarifResult{}
	for i := range r.Changes {
		c := &r.Changes[i]
		if _, ok := index[c.Rule]; !ok {
			// A rule the catalog does not list still gets an entry, so
			// every ruleIndex is valid.
			index[c.Rule] = len(driver.Rules)
			driver.Rules = append(driver.Rules, sarifRule{
				ID:                   c.Rule,
				DefaultConfiguration: sarifConfiguration{sarifLevel(c.Level)},
				Properties:           sarifRuleProps{Tags: []string{}, Direction: c.Direction},
			})
		}
		results = append(results, sarifResultOf(c, index[c.Rule]))
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool:    sarifTool{Driver: driver},
			Results: results,
			Properties: map[string]any{
				"old":       r.Old,
				"new":       r.New,
				"level":     r.Level,
				"gateLevel": gateLevel(r, opts),
				"failOn":    FailOnString(opts.failOn()),
			},
		}},
	}
	return encodeJSON(w, log)
}

// sarifCatalog is the driver listing the rule catalog, and each rule's
// index in it.
func sarifCatalog(opts Options) (sarifDriver, map[string]int) {
	driver := sarifDriver{Name: "mcpctl", Version: opts.Version, InformationURI: informationURI, Rules: []sarifRule{}}
	index := map[string]int{}
	for _, rule := range opts.rules() {
		index[string(rule.ID)] = len(driver.Rules)
		tags := rule.Tags
		if tags == nil {
			tags = []string{}
		}
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   string(rule.ID),
			ShortDescription:     &sarifText{rule.Purpose},
			DefaultConfiguration: sarifConfiguration{sarifLevel(catalogLevel(rule))},
			Properties:           sarifRuleProps{Tags: tags, Direction: rule.Direction},
		})
	}
	return driver, index
}

// sarifResultOf is the result of finding c, of the rule at ruleIndex.
func sarifResultOf(c *diff.Change, ruleIndex int) sarifResult {
	lvl := c.Level
	if lvl == diff.Facade && c.Covered {
		lvl = diff.Safe
	}
	res := sarifResult{
		RuleID:    c.Rule,
		RuleIndex: &ruleIndex,
		Level:     sarifLevel(lvl),
		Message:   sarifText{sarifMessage(c)},
		Locations: []sarifLocation{{LogicalLocations: []sarifLogical{{
			Name:               c.Tool,
			FullyQualifiedName: c.Tool + toolPointer(c),
			Kind:               "function",
		}}}},
		Properties: sarifResultProps{
			Tool: c.Tool, Direction: c.Direction, Pointer: toolPointer(c), MCPCtlLevel: c.Level,
			Old: c.Old, New: c.New, Witness: c.Witness, Facade: c.Facade, Notice: c.Notice,
			Covered: c.Covered, Undecided: c.Undecided, RuleBug: c.RuleBug,
			Calls: c.Calls, Unused: c.Unused,
		},
	}
	if c.Ignored {
		res.Suppressions = []sarifSuppression{{Kind: "external", Justification: c.IgnoreReason}}
	}
	return res
}

func sarifMessage(c *diff.Change) string {
	var b strings.Builder
	b.WriteString(oneLine(c.Message))
	if v := compactJSON(c.Witness); v != "" {
		b.WriteString(" (witness: " + v + ")")
	}
	switch {
	case c.Undecided && c.Reason != "":
		b.WriteString(" (undecided: " + oneLine(c.Reason) + ")")
	case c.Reason != "":
		b.WriteString(" (reason: " + oneLine(c.Reason) + ")")
	}
	if c.Notice != nil {
		b.WriteString(" (notice: " + oneLine(*c.Notice) + ")")
	}
	if c.Unused {
		b.WriteString(" (unused: no recorded call touches it)")
	}
	return b.String()
}
