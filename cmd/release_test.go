package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// TestGoreleaserConfig checks .goreleaser.yaml is valid YAML with the keys
// releases depend on (goreleaser itself is not installed here).
func TestGoreleaserConfig(t *testing.T) {
	data, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Main    string   `yaml:"main"`
			Env     []string `yaml:"env"`
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
		Archives []struct {
			Files []string `yaml:"files"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("invalid YAML: %v", err)
	}
	if cfg.Version != 2 || len(cfg.Builds) != 1 || len(cfg.Archives) != 1 {
		t.Fatalf("want version 2, one build, one archive; got %+v", cfg)
	}
	b := cfg.Builds[0]
	got := map[string]any{"main": b.Main, "env": b.Env, "goos": b.Goos, "goarch": b.Goarch, "files": cfg.Archives[0].Files, "checksum": cfg.Checksum.NameTemplate != ""}
	want := map[string]any{"main": "./cmd/mcpctl", "env": []string{"CGO_ENABLED=0"}, "goos": []string{"linux", "darwin", "windows"},
		"goarch": []string{"amd64", "arm64"}, "files": []string{"README.md", "LICENSE"}, "checksum": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	if len(b.Ldflags) != 1 || !strings.Contains(b.Ldflags[0], "-X github.com/mcpctl/mcpctl/cmd.Version={{.Version}}") {
		t.Errorf("ldflags do not stamp cmd.Version: %q", b.Ldflags)
	}
}
