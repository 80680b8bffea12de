package toolset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

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
func WriteSnapshot(w io.Writer, set *Set) error {
	var buf bytes.Buffer
	if len(set.Tools) == 0 {
		buf.WriteString("{\n  \"tools\": []\n}\n")
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
		buf.WriteString("  ]\n}\n")
	}
	_, err := w.Write(buf.Bytes())
	return err
}
