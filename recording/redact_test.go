package recording

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/facade"
)

// line records args (as sent; translated by a facade when translated is
// not empty) with the redactor of entries and returns the record line.
func line(t testing.TB, entries []string, args, translated string, f *facade.Block) string {
	t.Helper()
	r, err := NewRedactor(entries)
	if err != nil {
		t.Fatal(err)
	}
	c := &Call{Tool: "t", Args: json.RawMessage(args), Expect: "accepted", Facade: f, Redactor: r}
	if translated != "" {
		c.Expect, c.Translated = "translated", []byte(translated)
	}
	got, err := AppendRecord(nil, c)
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

func TestRedaction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		entries []string
		args    string
		want    string
		// translated: the arguments a facade made of args (redaction
		// follows values into them), or "" when not translated.
		translated string
	}{
		{"nothing configured, nothing secret", nil, `{"q":"x","max_tokens":5,"keyword":"k"}`, `{"q":"x","max_tokens":5,"keyword":"k"}`, ``},
		{"default secret names", nil,
			`{"access_token":"a","clientSecret":"b","X-API-Key":"c","Authorization":"d","password":"e","apiKey":"f","nested":[{"PASSWD":"g"}]}`,
			`{"access_token":"[redacted]","clientSecret":"[redacted]","X-API-Key":"[redacted]","Authorization":"[redacted]","password":"[redacted]","apiKey":"[redacted]","nested":[{"PASSWD":"[redacted]"}]}`, ``},
		{"plural and digit forms, at any depth", []string{"user"},
			`{"passwords":["p1"],"nested":{"apiKeys":{"a":"k"},"token2":"t"},"user":"u","max_tokens":5,"q":"x"}`,
			`{"passwords":"[redacted]","nested":{"apiKeys":"[redacted]","token2":"[redacted]"},"user":"[redacted]","max_tokens":5,"q":"x"}`, ``},
		{"a secret-looking object is redacted whole", nil, `{"token":{"v":1},"q":1}`, `{"token":"[redacted]","q":1}`, ``},
		{"by name at any depth", []string{"ssn"}, `{"ssn":"1","p":{"ssn":"2","x":[{"ssn":3}]},"ssnx":"4"}`, `{"ssn":"[redacted]","p":{"ssn":"[redacted]","x":[{"ssn":"[redacted]"}]},"ssnx":"4"}`, ``},
		{"by pointer only there", []string{"/a/pin"}, `{"a":{"pin":"1"},"b":{"pin":"2"}}`, `{"a":{"pin":"[redacted]"},"b":{"pin":"2"}}`, ``},
		{"pointer to an array item", []string{"/cards/1"}, `{"cards":["a","b","c"]}`, `{"cards":["a","[redacted]","c"]}`, ``},
		{"names and pointers together", []string{"token", "/items/1", "/auth/user"},
			`{"token":"s3cr3t","query":"x","auth":{"token":"t2","user":"u","list":[{"token":1},"keep"]},"items":["a","b"]}`,
			`{"token":"[redacted]","query":"x","auth":{"token":"[redacted]","user":"[redacted]","list":[{"token":"[redacted]"},"keep"]},"items":["a","[redacted]"]}`, ``},
		{"escaped pointer", []string{"/a~1b/c~0d"}, `{"a/b":{"c~d":"x","e":"y"}}`, `{"a/b":{"c~d":"[redacted]","e":"y"}}`, ``},
		{"pointer that matches nothing", []string{"/nope"}, `{"a":1}`, `{"a":1}`, ``},
		{"after a facade: renamed to a secret name", nil, `{"host":"h","pp":"S3"}`, `{"host":"h","pp":"[redacted]"}`, `{"host":"h","passphrase":"S3"}`},
		{"after a facade: renamed to a configured name", []string{"code"}, `{"c":"x1","n":"x2"}`, `{"c":"[redacted]","n":"x2"}`, `{"code":"x1","n":"x2"}`},
		{"after a facade: coerced from a string", []string{"/auth/pin"}, `{"pin":"1234","n":5}`, `{"pin":"[redacted]","n":5}`, `{"auth":{"pin":1234},"n":5}`},
		{"after a facade: moved object", []string{"/creds"}, `{"login":{"u":"a","p":"b"}}`, `{"login":"[redacted]"}`, `{"creds":{"u":"a","p":"b"}}`},
		{"after a facade: nothing secret moved", nil, `{"q":"x"}`, `{"q":"x"}`, `{"query":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			expect := "accepted"
			if tc.translated != "" {
				expect = "translated"
			}
			want := `{"tool":"t","arguments":` + tc.want + `,"expect":"` + expect + `"}` + "\n"
			if d := cmp.Diff(want, line(t, tc.entries, tc.args, tc.translated, nil)); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// A secret sent under a name the tool's facade renames into a redacted
// position is redacted whether or not the facade ran (valid as sent, or
// rejected for another reason).
func TestRedactionOldNames(t *testing.T) {
	t.Parallel()
	f := &facade.Block{
		Rename:  map[string]string{"pp": "passphrase", "oldpin": "pin", "/a/k": "/auth/key2", "q": "query"},
		Aliases: []facade.Alias{{Name: "old", Rename: map[string]string{"tok": "access_token"}}},
	}
	got := line(t, []string{"pin", "/auth/key2"}, `{"pp":"S1","oldpin":"S2","a":{"k":"S3","j":"x"},"tok":"S4","q":"visible","x":{"pp":"deep"}}`, "", f)
	want := `{"tool":"t","arguments":{"pp":"[redacted]","oldpin":"[redacted]","a":{"k":"[redacted]","j":"x"},"tok":"[redacted]","q":"visible","x":{"pp":"deep"}},"expect":"accepted"}` + "\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

// The entries both `serve --record` (record.redact) and `fixtures convert
// --redact` refuse: nothing they would name could be meant.
func TestRedactorRefusesEntries(t *testing.T) {
	t.Parallel()
	for _, e := range []string{"", " ", "\t", "/a~2", "/a~", "/~x/b"} {
		_, err := NewRedactor([]string{"ok", e})
		var ee *EntryError
		if !errors.Is(err, ErrRedactEntry) || !errors.As(err, &ee) || ee.Entry != e {
			t.Errorf("%q: %v, want an *EntryError for it", e, err)
		}
	}
	for _, e := range []string{"token", "a b", "/", "/a~0b/~1c", "/items/0"} {
		if err := CheckEntry(e); err != nil {
			t.Errorf("%q refused: %v", e, err)
		}
	}
}

func TestAppendRecordUnrecordable(t *testing.T) {
	t.Parallel()
	for _, args := range []string{`[1]`, `"x"`, `{"a":1,"a":2}`, `{`} {
		if _, err := AppendRecord(nil, &Call{Tool: "t", Args: json.RawMessage(args)}); !errors.Is(err, ErrNotObject) && !errors.Is(err, ErrNotJSON) {
			t.Errorf("%s: %v, want ErrNotObject or ErrNotJSON (not a fixture)", args, err)
		}
	}
	if _, err := AppendRecord(nil, &Call{Args: json.RawMessage(`{}`)}); !errors.Is(err, ErrNoTool) {
		t.Errorf("a call without a tool name: %v, want ErrNoTool", err)
	}
}
