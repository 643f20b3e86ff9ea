// Package docs_test holds the documentation to the code: every test a page
// names as holding a promise exists where the page says.
package docs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// testName is a test, fuzz target, benchmark or example named in a
	// page, in backquotes.
	testName = regexp.MustCompile("`((?:Test|Fuzz|Benchmark|Example)[A-Za-z0-9_]+)`")
	// pkgAfter is the package a group of names is said to be in, as in
	// "`TestA`, `TestB` (cmd/aaep-listen)".
	pkgAfter = regexp.MustCompile(`^[^|(]*?\(([a-z0-9/-]+)`)
)

// Every test a page of docs/ names (security.md names one for each promise)
// is a function of that name in the package the page names with it (or,
// named with no package, somewhere in the module): a test moved or renamed
// leaves no promise held by nothing.
func TestPromisesNameRealTests(t *testing.T) {
	pages, _ := filepath.Glob("*.md")
	for _, page := range pages {
		doc, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(doc), "\n") {
			for _, m := range testName.FindAllStringSubmatchIndex(line, -1) {
				name := line[m[2]:m[3]]
				dir := ".."
				if p := pkgAfter.FindStringSubmatch(line[m[1]:]); p != nil && isDir(filepath.Join("..", p[1])) {
					dir = filepath.Join("..", p[1]) // else words in brackets, not a package
				}
				if !defines(t, dir, name) {
					t.Errorf("%s names %s in %s, which has no such test", page, name, strings.TrimPrefix(dir, "../"))
				}
			}
		}
	}
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// defines reports whether a _test.go file in dir (and, for the module's
// root, below it) declares func name.
func defines(t *testing.T, dir, name string) bool {
	t.Helper()
	decl := []byte("\nfunc " + name + "(")
	found := false
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || found {
			return err
		}
		if d.IsDir() && path != dir && dir != ".." {
			return filepath.SkipDir // the named package only
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		found = err == nil && bytes.Contains(b, decl)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
