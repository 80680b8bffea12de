package report

import (
	"fmt"
	"io"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/toolset"
)

// Fingerprints is the JSON document of `mcpctl canon --fingerprint
// --format json` (docs/output.md#fingerprints; schema
// docs/schema/fingerprints-output.schema.json): the SHA-256 of the set's
// canonical form and of each tool's, tools sorted by name.
type Fingerprints struct {
	Source      string            `json:"source"`
	Fingerprint string            `json:"fingerprint"`
	Tools       []ToolFingerprint `json:"tools"`
}

// ToolFingerprint is one tool's fingerprint.
type ToolFingerprint struct {
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
}

// NewFingerprints fingerprints set, after the semantic normalizations when
// normalize is set (docs/canon.md).
func NewFingerprints(set *toolset.Set, normalize bool) Fingerprints {
	f := Fingerprints{Source: set.Source, Fingerprint: canon.Fingerprint(set.Canonical(normalize)), Tools: []ToolFingerprint{}}
	for _, t := range set.Tools {
		f.Tools = append(f.Tools, ToolFingerprint{t.Name, canon.Fingerprint(t.Canonical(normalize))})
	}
	return f
}

// FingerprintsJSON writes f indented, with a final newline.
func FingerprintsJSON(w io.Writer, f Fingerprints) error { return encodeJSON(w, f) }

// FingerprintsText writes one `NAME  SHA256` line per tool, names padded
// to the longest, then the set's as `(set)  SHA256`.
func FingerprintsText(w io.Writer, f Fingerprints) error {
	width := 0
	for _, t := range f.Tools {
		width = max(width, len(t.Name))
	}
	for _, t := range f.Tools {
		if _, err := fmt.Fprintf(w, "%-*s  %s\n", width, t.Name, t.Fingerprint); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%-*s  %s\n", width, "(set)", f.Fingerprint)
	return err
}
