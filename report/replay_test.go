package report

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/toolset"
)

// replayReport replays testdata/replay/calls.jsonl against
// testdata/replay/tools.json with testdata/replay/facades.json, with one
// live result filled in, so that every renderer shows every outcome.
func replayReport(t *testing.T) *fixtures.Report {
	t.Helper()
	data, err := os.ReadFile("testdata/replay/tools.json")
	if err != nil {
		t.Fatal(err)
	}
	set, err := toolset.Decode("tools.json", data)
	if err != nil {
		t.Fatal(err)
	}
	fdata, err := os.ReadFile("testdata/replay/facades.json")
	if err != nil {
		t.Fatal(err)
	}
	var f facade.File
	if err := json.Unmarshal(fdata, &f); err != nil {
		t.Fatal(err)
	}
	r, err := fixtures.NewReplayer(set, f)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.RunPath(context.Background(), "testdata/replay/calls.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep.Against.Source = "tools.json"
	rep.Calls[0].Live = &fixtures.LiveResult{Tool: "search", Arguments: rep.Calls[0].Arguments, Outcome: fixtures.LiveIsError, Message: "index offline\nretry later"}
	return rep
}

func TestReplayRenderGolden(t *testing.T) {
	t.Parallel()
	rep := replayReport(t)
	tests := []struct {
		format string
		color  bool
		golden string
	}{
		{"text", false, "report.txt"},
		{"text", true, "report.color.txt"},
		{"json", false, "report.json"},
		{"markdown", false, "report.md"},
		{"github", false, "report.github.txt"},
		{"junit", false, "report.junit.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := RenderReplay(&buf, tt.format, rep, fixtures.FailOnRejected, tt.color); err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(buf.String(), "\x1b", `\x1b`)
			path := filepath.Join("testdata", "replay", tt.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
			switch tt.format {
			case "json":
				var v map[string]any
				if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
					t.Errorf("not JSON: %v", err)
				}
			case "junit":
				var v struct{}
				if err := xml.Unmarshal(buf.Bytes(), &v); err != nil {
					t.Errorf("not XML: %v", err)
				}
			}
		})
	}
}

// TestReplayJSONContract pins the public JSON shape of docs/replay.md#replay-recorded-calls-against-a-new-contract.
func TestReplayJSONContract(t *testing.T) {
	t.Parallel()
	rep := replayReport(t)
	var buf bytes.Buffer
	if err := replayJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Counts map[string]int `json:"counts"`
		Calls  []struct {
			Source     string          `json:"source"`
			Tool       string          `json:"tool"`
			Arguments  json.RawMessage `json:"arguments"`
			Outcome    string          `json:"outcome"`
			Translated *struct {
				Tool      string          `json:"tool"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"translated"`
			Error *string `json:"error"`
		} `json:"calls"`
	}
	dec := json.NewDecoder(&buf)
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"accepted": 1, "translated": 1, "rejected": 1, "unknown-tool": 1}, got.Counts); d != "" {
		t.Errorf("counts: mismatch (-want +got):\n%s", d)
	}
	for _, c := range got.Calls {
		if c.Source == "" || c.Tool == "" || len(c.Arguments) == 0 || c.Arguments[0] != '{' {
			t.Errorf("call %+v lacks source, tool or an arguments object", c)
		}
		if (c.Translated != nil) != (c.Outcome == "translated") {
			t.Errorf("%s: outcome %s with translated %v", c.Source, c.Outcome, c.Translated)
		}
		if (c.Error != nil) != (c.Outcome == "rejected" || c.Outcome == "unknown-tool") {
			t.Errorf("%s: outcome %s with error %v", c.Source, c.Outcome, c.Error)
		}
	}
}
