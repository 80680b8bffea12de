package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// IsServeConfig reports whether a source is a serve config rather than a
// discovery document: a .yaml or .yml name, or a JSON object with a
// top-level "server" or "gate" member.
func IsServeConfig(name string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return true
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if _, err := dec.Token(); err != nil { // {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if k, ok := tok.(string); ok && (k == "server" || k == "gate") {
			return true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

// decodeServeConfig decodes a serve config (docs/serve.md#config: YAML or
// JSON with a top-level tools list beside server and gate) into the tool
// set it serves, through package serveconfig's parser. readFile reads a {$file:
// PATH} include by path (joined to the including file's folder); nil means
// includes cannot be resolved (standard input).
func decodeServeConfig(source string, data []byte, readFile func(string) ([]byte, error)) (*toolset.Set, error) {
	cfg, err := serveconfig.ParseConfig(source, data, readFile)
	if err != nil {
		return nil, err
	}
	return cfg.Set()
}

// decodeGitServeConfig reads a serve config at git:REV:PATH, its includes
// from the same revision.
func decodeGitServeConfig(ctx context.Context, dir, source string, data []byte) (*toolset.Set, error) {
	rest := strings.TrimPrefix(source, "git:")
	i := strings.LastIndex(rest, ":")
	rev, path := rest[:i], rest[i+1:]
	set, err := decodeServeConfig(path, data, func(p string) ([]byte, error) {
		return gitShow(ctx, dir, "git:"+rev+":"+filepath.ToSlash(p))
	})
	if err != nil {
		var ie *toolset.InputError
		if errors.As(err, &ie) && !strings.HasPrefix(ie.Source, "git:") {
			ie.Source = "git:" + rev + ":" + ie.Source
		}
		return nil, err
	}
	set.Source = source
	return set, nil
}
