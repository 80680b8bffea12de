package serve

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestHooksOnlyFromTests: the test hooks reach a Server only through
// newTestServer (export_test.go). Outside _test.go files nothing assigns
// s.hooks or one of its fields, writes a non-empty hooks literal, or calls
// newServer with hooks other than hooks{}; so no production path can run a
// test hook.
func TestHooksOnlyFromTests(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, pos := range hookWrites(f) {
			t.Errorf("%s: a test hook is set outside the tests (only newTestServer in export_test.go may)", fset.Position(pos))
		}
	}
}

// hookWrites returns where f sets a hook: an assignment to x.hooks or
// x.hooks.F, a hooks literal with fields, a newServer call whose hooks are
// not hooks{}.
func hookWrites(f *ast.File) []token.Pos {
	var at []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				if sel, ok := lhs.(*ast.SelectorExpr); ok && (sel.Sel.Name == "hooks" || isSelector(sel.X, "hooks")) {
					at = append(at, lhs.Pos())
				}
			}
		case *ast.CompositeLit:
			if isIdent(n.Type, "hooks") && len(n.Elts) > 0 {
				at = append(at, n.Pos())
			}
		case *ast.CallExpr:
			if isIdent(n.Fun, "newServer") && (len(n.Args) != 3 || !isEmptyHooks(n.Args[2])) {
				at = append(at, n.Pos())
			}
		}
		return true
	})
	return at
}

func isSelector(e ast.Expr, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isEmptyHooks(e ast.Expr) bool {
	lit, ok := e.(*ast.CompositeLit)
	return ok && isIdent(lit.Type, "hooks") && len(lit.Elts) == 0
}
