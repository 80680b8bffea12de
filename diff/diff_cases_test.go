package diff

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// diffCase is one "diff" case of testdata/cases/cases.json (see its
// README).
type diffCase struct {
	ID     string          `json:"id"`
	Kind   string          `json:"kind"`
	About  string          `json:"about"`
	Old    json.RawMessage `json:"old"`
	New    json.RawMessage `json:"new"`
	Expect struct {
		Level    string `json:"level"`
		Findings []struct {
			Tool      string          `json:"tool"`
			Direction string          `json:"direction"`
			Level     string          `json:"level"`
			Mentions  string          `json:"mentions"`
			Witness   json.RawMessage `json:"witness"`
		} `json:"findings"`
	} `json:"expect"`
}

func loadDiffCases(t testing.TB) []diffCase {
	t.Helper()
	data, err := os.ReadFile("../testdata/cases/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []diffCase
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	var out []diffCase
	for _, c := range all {
		if c.Kind == "diff" {
			out = append(out, c)
		}
	}
	return out
}

func wrapToolsJSON(tools json.RawMessage) []byte {
	return append(append([]byte(`{"tools": `), tools...), '}')
}

func TestDiffCases(t *testing.T) {
	t.Parallel()
	cases := loadDiffCases(t)
	if len(cases) == 0 {
		t.Fatal("no diff cases")
	}
	for _, tc := range cases {
		t.Run(tc.ID, func(t *testing.T) {
			old := decodeToolSet(t, "old", wrapToolsJSON(tc.Old))
			new := decodeToolSet(t, "new", wrapToolsJSON(tc.New))
			r := Compare(old, new, Options{})
			if got := r.Level.String(); got != tc.Expect.Level {
				t.Errorf("level = %s, want %s (%s)%s", got, tc.Expect.Level, tc.About, changeSummary(r))
			}
			for _, want := range tc.Expect.Findings {
				if len(want.Witness) > 0 && !witnessHolds(t, old, new, want.Tool, Input, want.Witness) {
					t.Errorf("case data: expected witness %s does not hold", want.Witness)
				}
				found := false
				for _, c := range r.Changes {
					if c.Tool != want.Tool || c.Level.String() != want.Level {
						continue
					}
					if want.Direction != "" && string(c.Direction) != want.Direction {
						continue
					}
					if want.Mentions != "" && !mentionsWord(c, want.Mentions) {
						continue
					}
					if len(want.Witness) > 0 {
						if len(c.Witness) == 0 || bytes.Equal(c.Witness, []byte("null")) {
							continue
						}
						if !witnessHolds(t, old, new, c.Tool, c.Direction, c.Witness) {
							continue
						}
					}
					found = true
					break
				}
				if !found {
					t.Errorf("missing finding tool=%s direction=%s level=%s mentions=%q witness=%s%s", want.Tool, want.Direction, want.Level, want.Mentions, want.Witness, changeSummary(r))
				}
			}
			checkWitnesses(t, old, new, r)
		})
	}
}
