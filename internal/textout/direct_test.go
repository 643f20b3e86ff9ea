package textout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoDirectWrites fails when a command or an output package writes to
// the process's streams other than through term.IO.Printf/Eprintf and
// textout.Fprintf: no fmt.Print*, no os.Stdout or os.Stderr, and no
// fmt.Fprint* to a command's Out or ErrOut.
func TestNoDirectWrites(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range []string{"cmd", "line", "tui", "speech", "braille", "notify", "capture"} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, _ := sel.X.(*ast.Ident)
				switch {
				case pkg != nil && pkg.Name == "os" && (sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr") &&
					filepath.ToSlash(path) != "../../tui/model.go": // lipgloss asks the terminal what it can do
					t.Errorf("%s: uses os.%s; print through term.IO", path, sel.Sel.Name)
				case pkg != nil && pkg.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Print"):
					t.Errorf("%s: uses fmt.%s; print through term.IO", path, sel.Sel.Name)
				}
				return true
			})
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				fn, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !strings.HasPrefix(fn.Sel.Name, "Fprint") {
					return true
				}
				if pkg, ok := fn.X.(*ast.Ident); !ok || pkg.Name != "fmt" {
					return true
				}
				if w, ok := call.Args[0].(*ast.SelectorExpr); ok && (w.Sel.Name == "Out" || w.Sel.Name == "ErrOut") {
					t.Errorf("%s: fmt.%s to %s; use Printf or Eprintf of term.IO", path, fn.Sel.Name, w.Sel.Name)
				}
				return true
			})
			return nil
		})
	}
}
