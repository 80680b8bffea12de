package layering

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docPath is the page whose fenced "layers" block declares the layers,
// relative to the module root.
const docPath = "docs/architecture.md"

// table is the declared import order: every module package in one layer, a
// package importing only lower layers, or packages of its own layer that an
// allow line names; and the outside modules only some packages may import.
type table struct {
	exact  map[string]int      // module-relative package path -> layer
	under  map[string]int      // "internal/" (from "internal/*") -> layer
	allow  map[[2]string]bool  // {importer, imported} in one layer
	only   map[string][]string // outside import path -> the packages that may import it
	lineOf map[string]int      // entry as written -> line in the block
}

// tableError is a malformed layers block, located by its line in
// docs/architecture.md.
type tableError struct {
	Line int
	Msg  string
}

func (e *tableError) Error() string {
	return fmt.Sprintf("%s:%d: layers block: %s", docPath, e.Line, e.Msg)
}

// errNoBlock means the page has no fenced "layers" block, or more than one.
var errNoBlock = errors.New("docs/architecture.md must hold exactly one fenced block opened with ```layers")

// layersBlock returns the lines of the one fenced block whose info string
// is "layers", and the line number in markdown of the line before the first.
func layersBlock(markdown string) (block []string, base int, err error) {
	found, in, n := 0, false, 0
	for line := range strings.Lines(markdown) {
		n++
		line = strings.TrimRight(line, "\r\n")
		switch {
		case !in && strings.TrimSpace(line) == "```layers":
			found++
			in = true
			if found == 1 {
				base = n
			}
		case in && strings.TrimSpace(line) == "```":
			in = false
		case in && found == 1:
			block = append(block, line)
		}
	}
	if found != 1 || in {
		return nil, 0, errNoBlock
	}
	return block, base, nil
}

// parseTable reads the layers block: "N: pkg pkg…" lines in increasing N
// from 0, "allow: IMPORTER -> IMPORTED" lines, blank lines and # comments.
// A package is a module-relative path, or "dir/*" for every package below
// dir. Errors name line base+i+1 for lines[i].
func parseTable(lines []string, base int) (*table, error) {
	t := &table{exact: map[string]int{}, under: map[string]int{}, allow: map[[2]string]bool{}, only: map[string][]string{}, lineOf: map[string]int{}}
	next := 0
	for i, line := range lines {
		n := base + i + 1
		if k := strings.IndexByte(line, '#'); k >= 0 {
			line = line[:k]
		}
		head, rest, ok := strings.Cut(line, ":")
		head = strings.TrimSpace(head)
		switch {
		case strings.TrimSpace(line) == "":
			continue
		case !ok:
			return nil, &tableError{n, fmt.Sprintf("%q is none of \"N: packages\", \"allow: A -> B\", \"only: PATH -> packages\"", line)}
		case head == "allow":
			if err := t.addAllow(n, rest); err != nil {
				return nil, err
			}
		case head == "only":
			if err := t.addOnly(n, rest); err != nil {
				return nil, err
			}
		default:
			layer, err := strconv.Atoi(head)
			if err != nil || layer != next {
				return nil, &tableError{n, fmt.Sprintf("layer %q: want %d (layers are numbered 0, 1, 2, … in order)", head, next)}
			}
			if err := t.addLayer(n, layer, strings.Fields(rest)); err != nil {
				return nil, err
			}
			next++
		}
	}
	if next == 0 {
		return nil, &tableError{base + len(lines), "no layers declared"}
	}
	if err := t.checkAllows(); err != nil {
		return nil, err
	}
	return t, t.checkOnly()
}

func (t *table) addLayer(line, layer int, pkgs []string) error {
	if len(pkgs) == 0 {
		return &tableError{line, fmt.Sprintf("layer %d lists no package", layer)}
	}
	for _, p := range pkgs {
		if _, dup := t.lineOf[p]; dup {
			return &tableError{line, fmt.Sprintf("%s is already declared on line %d", p, t.lineOf[p])}
		}
		t.lineOf[p] = line
		if dir, ok := strings.CutSuffix(p, "/*"); ok {
			t.under[dir+"/"] = layer
			continue
		}
		t.exact[p] = layer
	}
	return nil
}

func (t *table) addAllow(line int, rest string) error {
	a, b, ok := strings.Cut(rest, "->")
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if !ok || a == "" || b == "" || strings.ContainsAny(a+b, " \t") {
		return &tableError{line, fmt.Sprintf("allow %q: want \"allow: IMPORTER -> IMPORTED\"", strings.TrimSpace(rest))}
	}
	t.allow[[2]string{a, b}] = true
	t.lineOf["allow "+a+" -> "+b] = line
	return nil
}

// addOnly reads "only: PATH -> pkg pkg…": the outside package PATH (and
// every package below it) may be imported by the listed packages alone.
func (t *table) addOnly(line int, rest string) error {
	path, pkgs, ok := strings.Cut(rest, "->")
	path = strings.TrimSpace(path)
	if !ok || path == "" || strings.ContainsAny(path, " \t") || len(strings.Fields(pkgs)) == 0 {
		return &tableError{line, fmt.Sprintf("only %q: want \"only: IMPORT/PATH -> PACKAGE…\"", strings.TrimSpace(rest))}
	}
	if _, dup := t.only[path]; dup {
		return &tableError{line, fmt.Sprintf("only %s is already declared on line %d", path, t.lineOf["only "+path])}
	}
	t.only[path] = strings.Fields(pkgs)
	t.lineOf["only "+path] = line
	return nil
}

// checkOnly refuses an only line that names an undeclared package.
func (t *table) checkOnly() error {
	for _, path := range slices.Sorted(maps.Keys(t.only)) {
		for _, p := range t.only[path] {
			if _, ok := t.layerOf(p); !ok {
				return &tableError{t.lineOf["only "+path], fmt.Sprintf("only %s: package %s is not declared in a layer", path, p)}
			}
		}
	}
	return nil
}

// checkAllows refuses an allow line whose packages are undeclared or in
// different layers (such a line would mean nothing).
func (t *table) checkAllows() error {
	for pair := range t.allow {
		la, oka := t.layerOf(pair[0])
		lb, okb := t.layerOf(pair[1])
		if !oka || !okb || la != lb {
			return &tableError{t.lineOf["allow "+pair[0]+" -> "+pair[1]], fmt.Sprintf("allow %s -> %s: both must be declared in one layer", pair[0], pair[1])}
		}
	}
	return nil
}

// layerOf finds a package's layer: its exact entry, else the longest
// "dir/*" entry above it.
func (t *table) layerOf(pkg string) (int, bool) {
	if l, ok := t.exact[pkg]; ok {
		return l, true
	}
	best, layer := "", 0
	for dir, l := range t.under {
		if strings.HasPrefix(pkg, dir) && len(dir) > len(best) {
			best, layer = dir, l
		}
	}
	return layer, best != ""
}

// goFile is one parsed .go file: its module-relative path and package
// directory, whether it is a test file, its module-internal imports
// (module-relative) and its other imports (full paths).
type goFile struct {
	Path     string
	Pkg      string
	Test     bool
	Imports  []importSpec
	External []importSpec
}

// importSpec is one import: the package and the position of the import
// path in the file.
type importSpec struct {
	Pkg       string
	Line, Col int
}

// kind is what a violation breaks.
type kind string

const (
	kindUndeclared kind = "undeclared" // a package missing from the table
	kindAbsent     kind = "absent"     // a table entry no package matches
	kindUpward     kind = "upward"     // an import of a higher layer
	kindSameLayer  kind = "same-layer" // an import inside one layer, not allowed
	kindOnly       kind = "only"       // an outside import reserved to other packages
)

type violation struct {
	Kind kind
	At   string // FILE:LINE:COL of the import; empty for kindUndeclared and kindAbsent
	Pkg  string
	Imp  string
	Only []string // the packages an "only:" line reserves Imp to (kindOnly)
}

func (v violation) String() string {
	switch v.Kind {
	case kindUndeclared:
		return fmt.Sprintf("package %s is not in the layer table: add it to the ```layers block of %s", v.Pkg, docPath)
	case kindAbsent:
		return fmt.Sprintf("%s declares %s, but the module has no such package: remove it from the ```layers block", docPath, v.Pkg)
	case kindOnly:
		return fmt.Sprintf("%s: %s imports %s, which only %s may import (an \"only:\" line in %s)", v.At, v.Pkg, v.Imp, strings.Join(v.Only, ", "), docPath)
	case kindUpward:
		return fmt.Sprintf("%s: %s imports %s, which is in a higher layer (%s: a package imports only lower layers)", v.At, v.Pkg, v.Imp, docPath)
	default:
		return fmt.Sprintf("%s: %s imports %s in its own layer without an \"allow: %s -> %s\" line in %s", v.At, v.Pkg, v.Imp, v.Pkg, v.Imp, docPath)
	}
}

// check judges every file against the table and lists what breaks it:
// packages the table does not declare, entries no package matches,
// imports that point to a higher layer or, from a non-test file, to an
// unlisted package of the same layer, and outside imports an only line
// reserves to other packages. Test files may import their own
// layer freely (a test may build its input with a sibling package), never a
// higher one.
func (t *table) check(files []goFile) []violation {
	var out []violation
	seen := map[string]bool{}
	for _, f := range files {
		lp, ok := t.layerOf(f.Pkg)
		if !ok && !seen[f.Pkg] {
			out = append(out, violation{Kind: kindUndeclared, Pkg: f.Pkg})
		}
		seen[f.Pkg] = true
		if !ok {
			continue
		}
		for _, imp := range f.Imports {
			if v, bad := t.judge(f, lp, imp); bad {
				out = append(out, v)
			}
		}
		for _, imp := range f.External {
			if v, bad := t.restrict(f, imp); bad {
				out = append(out, v)
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(t.exact)) {
		if !seen[p] {
			out = append(out, violation{Kind: kindAbsent, Pkg: p})
		}
	}
	return out
}

// restrict decides one outside import of f against the only lines: PATH
// covers itself and every package below it.
func (t *table) restrict(f goFile, imp importSpec) (violation, bool) {
	for path, pkgs := range t.only {
		if (imp.Pkg == path || strings.HasPrefix(imp.Pkg, path+"/")) && !slices.Contains(pkgs, f.Pkg) {
			at := fmt.Sprintf("%s:%d:%d", f.Path, imp.Line, imp.Col)
			return violation{Kind: kindOnly, At: at, Pkg: f.Pkg, Imp: imp.Pkg, Only: pkgs}, true
		}
	}
	return violation{}, false
}

// judge decides one import of f, whose package is in layer lp. An import of
// an undeclared package is left to that package's own kindUndeclared.
func (t *table) judge(f goFile, lp int, imp importSpec) (violation, bool) {
	li, ok := t.layerOf(imp.Pkg)
	at := fmt.Sprintf("%s:%d:%d", f.Path, imp.Line, imp.Col)
	switch {
	case !ok || imp.Pkg == f.Pkg || li < lp:
		return violation{}, false
	case li > lp:
		return violation{Kind: kindUpward, At: at, Pkg: f.Pkg, Imp: imp.Pkg}, true
	case f.Test || t.allow[[2]string{f.Pkg, imp.Pkg}]:
		return violation{}, false
	default:
		return violation{Kind: kindSameLayer, At: at, Pkg: f.Pkg, Imp: imp.Pkg}, true
	}
}

// moduleRoot walks up from the working directory to the folder holding
// go.mod and returns it with the module path.
func moduleRoot() (root, module string, err error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for line := range strings.Lines(string(data)) {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(rest), `"`), nil
				}
			}
			return "", "", fmt.Errorf("%s: no module line", filepath.Join(dir, "go.mod"))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// skipDir reports whether the go command ignores a folder when it lists
// the module's packages: testdata, dot and underscore folders, nested
// modules, plus node_modules.
func skipDir(root, path, name string) bool {
	if path == root {
		return false
	}
	if name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := os.Stat(filepath.Join(path, "go.mod"))
	return err == nil
}

// loadModule parses the imports of every .go file of the module at root.
func loadModule(root, module string) ([]goFile, error) {
	var files []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDir(root, path, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".go") {
			return nil
		}
		f, err := parseFile(fset, root, path, module)
		files = append(files, f)
		return err
	})
	return files, err
}

func parseFile(fset *token.FileSet, root, path, module string) (goFile, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return goFile{}, err
	}
	f := goFile{Path: filepath.ToSlash(rel), Pkg: filepath.ToSlash(filepath.Dir(rel)), Test: strings.HasSuffix(path, "_test.go")}
	ast, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
	if err != nil {
		return f, err
	}
	for _, spec := range ast.Imports {
		imp, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return f, fmt.Errorf("%s: import %s: %w", f.Path, spec.Path.Value, err)
		}
		pos := fset.Position(spec.Path.Pos())
		rel, ok := strings.CutPrefix(imp, module+"/")
		if imp == module {
			rel, ok = ".", true
		}
		if ok {
			f.Imports = append(f.Imports, importSpec{Pkg: rel, Line: pos.Line, Col: pos.Column})
		} else {
			f.External = append(f.External, importSpec{Pkg: imp, Line: pos.Line, Col: pos.Column})
		}
	}
	return f, nil
}

// TestLayeringModule checks every import of every .go file in the module
// against the layers block of docs/architecture.md.
func TestLayeringModule(t *testing.T) {
	t.Parallel()
	root, module, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, docPath))
	if err != nil {
		t.Fatal(err)
	}
	lines, base, err := layersBlock(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := parseTable(lines, base)
	if err != nil {
		t.Fatal(err)
	}
	files, err := loadModule(root, module)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(files, func(f goFile) bool { return f.Path == "internal/layering/layering_test.go" }) {
		t.Fatalf("the walk from %s did not reach this test's own file; it reads %d files", root, len(files))
	}
	for _, v := range tab.check(files) {
		t.Error(v)
	}
}

// synthetic is the table the checker's own tests use.
const synthetic = "# a comment\n" +
	"0: base internal/*\n" +
	"1: mid side\n" +
	"2: top\n" +
	"allow: side -> mid\n" +
	"only: example.com/cli -> top\n"

// TestLayeringCheckSynthetic feeds the checker files that break each rule
// (and files that keep them), so the module test is known to be able to
// fail.
func TestLayeringCheckSynthetic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file goFile
		want []violation
	}{
		{"lower layer", goFile{Path: "top/a.go", Pkg: "top", Imports: imports("mid", "base", "internal/x")}, nil},
		{"upward", goFile{Path: "base/a.go", Pkg: "base", Imports: imports("top")},
			[]violation{{Kind: kindUpward, At: "base/a.go:3:2", Pkg: "base", Imp: "top"}}},
		{"internal pattern upward", goFile{Path: "internal/x/a.go", Pkg: "internal/x", Imports: imports("mid")},
			[]violation{{Kind: kindUpward, At: "internal/x/a.go:3:2", Pkg: "internal/x", Imp: "mid"}}},
		{"same layer, not allowed", goFile{Path: "mid/a.go", Pkg: "mid", Imports: imports("side")},
			[]violation{{Kind: kindSameLayer, At: "mid/a.go:3:2", Pkg: "mid", Imp: "side"}}},
		{"same layer, allowed", goFile{Path: "side/a.go", Pkg: "side", Imports: imports("mid")}, nil},
		{"test file, same layer", goFile{Path: "mid/a_test.go", Pkg: "mid", Test: true, Imports: imports("side", "mid")}, nil},
		{"test file, upward", goFile{Path: "mid/a_test.go", Pkg: "mid", Test: true, Imports: imports("top")},
			[]violation{{Kind: kindUpward, At: "mid/a_test.go:3:2", Pkg: "mid", Imp: "top"}}},
		{"only, allowed", goFile{Path: "top/a.go", Pkg: "top", External: imports("example.com/cli", "example.com/cli/sub", "example.com/client")}, nil},
		{"only, reserved to another package", goFile{Path: "mid/a.go", Pkg: "mid", External: imports("example.com/client", "example.com/cli/sub")},
			[]violation{{Kind: kindOnly, At: "mid/a.go:3:2", Pkg: "mid", Imp: "example.com/cli/sub", Only: []string{"top"}}}},
		{"only, test file too", goFile{Path: "mid/a_test.go", Pkg: "mid", Test: true, External: imports("example.com/cli")},
			[]violation{{Kind: kindOnly, At: "mid/a_test.go:3:2", Pkg: "mid", Imp: "example.com/cli", Only: []string{"top"}}}},
		{"undeclared package", goFile{Path: "extra/a.go", Pkg: "extra", Imports: imports("top")},
			[]violation{{Kind: kindUndeclared, Pkg: "extra"}}},
	}
	all := []goFile{{Pkg: "base"}, {Pkg: "mid"}, {Pkg: "side"}, {Pkg: "top"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tab, err := parseTable(strings.Split(synthetic, "\n"), 0)
			if err != nil {
				t.Fatal(err)
			}
			got := tab.check(append(all, tc.file))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// imports makes import specs of pkgs, each at line 3, column 2.
func imports(pkgs ...string) []importSpec {
	out := make([]importSpec, len(pkgs))
	for i, p := range pkgs {
		out[i] = importSpec{Pkg: p, Line: 3, Col: 2}
	}
	return out
}

// TestLayeringCheckAbsent: a declared package the module does not have is
// reported, so the table cannot rot when a package is removed or renamed.
func TestLayeringCheckAbsent(t *testing.T) {
	t.Parallel()
	tab, err := parseTable(strings.Split(synthetic, "\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := tab.check([]goFile{{Pkg: "base"}, {Pkg: "mid"}, {Pkg: "side"}})
	want := []violation{{Kind: kindAbsent, Pkg: "top"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

// TestLayeringParseTableErrors pins every refusal of a malformed block,
// with the line it names.
func TestLayeringParseTableErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		block string
		line  int
	}{
		{"empty", "# nothing\n", 1},
		{"no colon", "0 canon\n", 1},
		{"skipped layer", "0: a\n2: b\n", 2},
		{"not a number", "zero: a\n", 1},
		{"empty layer", "0: a\n1:\n", 2},
		{"declared twice", "0: a\n1: b a\n", 2},
		{"allow without arrow", "0: a b\nallow: a b\n", 2},
		{"allow across layers", "0: a\n1: b\nallow: b -> a\n", 3},
		{"allow of an undeclared package", "0: a\nallow: a -> c\n", 2},
		{"only without arrow", "0: a\nonly: example.com/x a\n", 2},
		{"only without packages", "0: a\nonly: example.com/x ->\n", 2},
		{"only declared twice", "0: a\nonly: example.com/x -> a\nonly: example.com/x -> a\n", 3},
		{"only for an undeclared package", "0: a\nonly: example.com/x -> b\n", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseTable(strings.Split(strings.TrimSuffix(tc.block, "\n"), "\n"), 10)
			var te *tableError
			if !errors.As(err, &te) {
				t.Fatalf("parseTable: %v, want a *tableError", err)
			}
			if te.Line != 10+tc.line {
				t.Errorf("error %q names line %d, want %d", te, te.Line, 10+tc.line)
			}
		})
	}
}

// TestLayeringBlock: the page must hold exactly one closed ```layers block.
func TestLayeringBlock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		md   string
		want []string
		base int
		err  error
	}{
		{"one", "# A\n\n```layers\n0: a\n1: b\n```\n\n```go\nx\n```\n", []string{"0: a", "1: b"}, 3, nil},
		{"none", "# A\n```go\n0: a\n```\n", nil, 0, errNoBlock},
		{"two", "```layers\n0: a\n```\n```layers\n0: b\n```\n", nil, 0, errNoBlock},
		{"unclosed", "```layers\n0: a\n", nil, 0, errNoBlock},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, base, err := layersBlock(tc.md)
			if !errors.Is(err, tc.err) {
				t.Fatalf("layersBlock: %v, want %v", err, tc.err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
			if base != tc.base {
				t.Errorf("block starts after line %d, want %d", base, tc.base)
			}
		})
	}
}
