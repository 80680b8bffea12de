// Package layering holds the test that keeps mcpctl's import graph in the
// order docs/architecture.md declares. It has no code of its own: the test
// reads the layer table from the fenced "layers" block of
// docs/architecture.md (the single source of truth), parses the imports of
// every .go file in the module with go/parser (ImportsOnly), and fails on
// an import that points to a higher layer, to an undeclared same-layer
// package, or from a package the table does not list, and on an outside
// import (cobra, lipgloss) that an "only" line reserves to other packages.
//
//	go test ./internal/layering
package layering
