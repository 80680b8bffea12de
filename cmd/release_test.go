package cmd

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the subset of goreleaser v2's configuration mcpctl
// uses. Decoding with KnownFields rejects any other key, as `goreleaser
// check` would reject a misspelt one (goreleaser is not installed here).
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Before      struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		ID              string   `yaml:"id"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		NameTemplate string   `yaml:"name_template"`
		Files        []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	SBOMs []struct {
		ID        string   `yaml:"id"`
		Artifacts string   `yaml:"artifacts"`
		Documents []string `yaml:"documents"`
	} `yaml:"sboms"`
	Changelog struct {
		Use  string `yaml:"use"`
		Sort string `yaml:"sort"`
	} `yaml:"changelog"`
}

// TestGoreleaserConfig checks .goreleaser.yaml: only keys goreleaser v2
// knows, archives for linux/darwin/windows × amd64/arm64 (zip on Windows)
// named as action/install.sh downloads them, checksums, an SBOM per
// archive, and cmd.Version stamped.
func TestGoreleaserConfig(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 || len(cfg.Builds) != 1 || len(cfg.Archives) != 1 || len(cfg.SBOMs) != 1 {
		t.Fatalf("want version 2, one build, one archive, one sbom; got %+v", cfg)
	}
	b, a := cfg.Builds[0], cfg.Archives[0]
	got := map[string]any{"main": b.Main, "env": b.Env, "goos": b.Goos, "goarch": b.Goarch, "files": a.Files,
		"formats": a.Formats, "overrides": len(a.FormatOverrides), "name": a.NameTemplate,
		"checksum": cfg.Checksum.NameTemplate, "algorithm": cfg.Checksum.Algorithm, "sbom": cfg.SBOMs[0].Artifacts}
	want := map[string]any{"main": "./cmd/mcpctl", "env": []string{"CGO_ENABLED=0"}, "goos": []string{"linux", "darwin", "windows"},
		"goarch": []string{"amd64", "arm64"}, "files": []string{"README.md", "LICENSE"},
		"formats": []string{"tar.gz"}, "overrides": 1, "name": "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}",
		"checksum": "checksums.txt", "algorithm": "sha256", "sbom": "archive"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	if o := a.FormatOverrides; len(o) != 1 || o[0].Goos != "windows" || !cmp.Equal(o[0].Formats, []string{"zip"}) {
		t.Errorf("want zip archives on windows, got %+v", o)
	}
	if len(b.Ldflags) != 1 || !strings.Contains(b.Ldflags[0], "-X github.com/mcpctl/mcpctl/cmd.Version={{.Version}}") {
		t.Errorf("ldflags do not stamp cmd.Version: %q", b.Ldflags)
	}
	install, err := os.ReadFile("../action/install.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`archive="mcpctl_${version}_${os}_${arch}.${ext}"`, `checksums.txt`, `ext=zip`} {
		if !strings.Contains(string(install), s) {
			t.Errorf("action/install.sh does not download the release by goreleaser's names: lacks %s", s)
		}
	}
}
