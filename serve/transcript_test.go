package serve

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected server messages of testdata/transcripts/*.txtar")

// TestTranscripts replays the wire transcripts in testdata/transcripts: each
// .txtar's comment says what it pins; the file "config.yaml" is the serve
// config; "session" lists the exchange, one message per line:
//
//	> JSON         the client sends this message
//	< JSON         the next server message is exactly these bytes
//	! reload FILE  the config is replaced by the archive's FILE and reloaded
//	               (synchronously; queued notifications are written before
//	               the next line runs)
//	# …            a comment
//
// The transport is newline-delimited JSON over pipes, as stdio frames it.
// With -update the "<" lines are rewritten from what the server sent.
func TestTranscripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runTranscript(t, file)
		})
	}
}

func runTranscript(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(bytes.TrimSpace(ar.Comment)) == 0 {
		t.Fatal("a transcript needs a comment saying what it pins")
	}
	sections := map[string][]byte{}
	for _, f := range ar.Files {
		sections[f.Name] = f.Data
	}
	cfg, ok := sections["config.yaml"]
	if !ok {
		t.Fatal(`no "config.yaml" section`)
	}
	session, ok := sections["session"]
	if !ok {
		t.Fatal(`no "session" section`)
	}
	s, path := startServer(t, string(cfg))
	c := dialRaw(t, s)

	var out bytes.Buffer
	changed := false
	for i, line := range strings.Split(strings.TrimRight(string(session), "\n"), "\n") {
		lineNo := i + 1
		switch {
		case strings.HasPrefix(line, "> "):
			c.send(strings.TrimPrefix(line, "> "))
			out.WriteString(line + "\n")
		case strings.HasPrefix(line, "< "):
			want := strings.TrimPrefix(line, "< ")
			got := string(c.recv())
			if got != want {
				if *update {
					changed = true
				} else {
					t.Errorf("session line %d: server message mismatch\nwant: %s\n got: %s", lineNo, want, got)
				}
			}
			out.WriteString("< " + got + "\n")
		case strings.HasPrefix(line, "! reload "):
			name := strings.TrimPrefix(line, "! reload ")
			data, ok := sections[name]
			if !ok {
				t.Fatalf("session line %d: no section %q", lineNo, name)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			res := s.Reload(context.Background(), "transcript")
			if res.Result != ResultPublished {
				t.Fatalf("session line %d: reload %s: %s %v", lineNo, res.Result, res.Reason, res.Errors)
			}
			settle(t, s)
			out.WriteString(line + "\n")
		case strings.HasPrefix(line, "#"), strings.TrimSpace(line) == "":
			out.WriteString(line + "\n")
		default:
			t.Fatalf("session line %d: want >, <, ! or #: %q", lineNo, line)
		}
	}
	// Nothing more may arrive: a ping answered next proves no stray message
	// was queued.
	c.nextID = 1 << 20
	c.call("ping", nil)
	for _, n := range c.notes {
		t.Errorf("unexpected server message after the transcript: %s", n)
	}
	if *update && changed {
		for i := range ar.Files {
			if ar.Files[i].Name == "session" {
				ar.Files[i].Data = out.Bytes()
			}
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
