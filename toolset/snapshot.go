package toolset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Member is one top-level member of a lockfile written after "tools" (for
// example the "facades" of a contract lockfile): its name and its JSON
// value, re-indented on output.
type Member struct {
	Name  string
	Value json.RawMessage
}

// WriteSnapshot writes set as a lockfile, a tools/list result
//
//	{
//	  "tools": [
//	    {
//	      "name": "…",
//	      …
//	    }
//	  ]
//	}
//
// with the tools in the set's order (sorted by name) and each tool's Raw
// bytes as received, re-indented with json.Indent (two spaces): only
// whitespace between tokens changes; member order, string escapes and
// number spellings are kept. The output ends with a newline and reads back
// with Decode to a set of the same canonical form. A tool whose Raw is not
// valid JSON is an error naming the tool; nothing is written then.
func WriteSnapshot(w io.Writer, set *Set) error { return WriteSnapshotWith(w, set) }

// WriteSnapshotWith writes set as WriteSnapshot does, followed by the
// extra top-level members in the order given, each value re-indented the
// same way. Decode ignores members other than "tools", so the output is
// still a tools/list result. An invalid member value is an error naming
// the member; nothing is written then.
func WriteSnapshotWith(w io.Writer, set *Set, extra ...Member) error {
	var buf bytes.Buffer
	if len(set.Tools) == 0 {
		buf.WriteString("{\n  \"tools\": []")
	} else {
		buf.WriteString("{\n  \"tools\": [\n")
		for i, t := range set.Tools {
			buf.WriteString("    ")
			if err := json.Indent(&buf, bytes.TrimSpace(t.Raw), "    ", "  "); err != nil {
				return fmt.Errorf("snapshot of %s: tool %q: %w", set.Source, t.Name, err)
			}
			if i < len(set.Tools)-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString("  ]")
	}
	for _, m := range extra {
		name, _ := json.Marshal(m.Name)
		fmt.Fprintf(&buf, ",\n  %s: ", name)
		if err := json.Indent(&buf, bytes.TrimSpace(m.Value), "  ", "  "); err != nil {
			return fmt.Errorf("snapshot of %s: member %q: %w", set.Source, m.Name, err)
		}
	}
	buf.WriteString("\n}\n")
	_, err := w.Write(buf.Bytes())
	return err
}
