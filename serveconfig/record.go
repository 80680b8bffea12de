package serveconfig

import (
	"strconv"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/recording"
	"github.com/mcpctl/mcpctl/toolset"
)

// RecordConfig is the serve config's record block (--record):
//
//	record:
//	  redact: [session_key, /auth/header, /items/0/pin]
//
// Redact lists what `serve --record` replaces with "[redacted]"
// (recording.Redacted) before a call's arguments reach the disk: an entry
// starting with "/" is a JSON Pointer (RFC 6901) into the arguments naming
// one position; any other entry is a member name redacted at any depth.
// Besides these, members whose name looks like a secret are always
// redacted (see recording.LooksSecret). For a call a facade translated,
// the positions are those of the translated arguments: a value that lands
// in a redacted position is redacted wherever it was sent (an old member
// name included). The block only matters with --record; the live
// generation's block applies to every call from its publish on, also to
// sessions pinned to an older generation.
type RecordConfig struct {
	Redact []string

	redactor *recording.Redactor
}

// Redactor returns the redaction of the block (recording.NewRedactor of
// Redact; nil, the secret-looking names only, for a config without one).
func (rc *RecordConfig) Redactor() *recording.Redactor {
	if rc == nil {
		return nil
	}
	return rc.redactor
}

func (p *cfgParser) record(rc *RecordConfig, v *canon.Value, ptr string) error {
	if v.Kind != canon.Object {
		return p.errAt(ptr, "", "record must be a mapping {redact: […]}, got %s", v.Kind)
	}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		if m.Key != "redact" {
			return p.keyErrAt(mp, "", "%s", unknownKey(m.Key, recordKeys...))
		}
		list, err := p.stringList(&m.Value, mp, "")
		if err != nil {
			return err
		}
		for j, e := range list {
			if err := recording.CheckEntry(e); err != nil {
				return p.entryErr(mp+"/"+strconv.Itoa(j), err)
			}
		}
		rc.Redact = list
	}
	r, err := recording.NewRedactor(rc.Redact)
	if err != nil { // checked above
		return p.entryErr(ptr, err)
	}
	rc.redactor = r
	return nil
}

// entryErr locates the refused redact entry at ptr, keeping err
// (recording.ErrRedactEntry) in the chain.
func (p *cfgParser) entryErr(ptr string, err error) error {
	ie := p.errAt(ptr, "", "record.redact: %v", err).(*toolset.InputError)
	ie.Err = err
	return ie
}
