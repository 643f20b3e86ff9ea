package docs_test

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mapEntry is one package of design-notes.md's package map: a list item
// that starts with the package's path inside the module, in backquotes.
var mapEntry = regexp.MustCompile("^- `([a-z0-9/._-]+)`")

// The package map in design-notes.md names every package of the module,
// once, and nothing that is not one: a package added, moved or removed
// changes the map too.
func TestPackageMapComplete(t *testing.T) {
	doc, err := os.ReadFile("design-notes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Package map\n")
	if !ok {
		t.Fatal(`design-notes.md has no "## Package map" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var mapped []string
	for _, line := range strings.Split(section, "\n") {
		if m := mapEntry.FindStringSubmatch(line); m != nil {
			mapped = append(mapped, m[1])
		}
	}
	out, err := exec.Command("go", "list", "github.com/aaep-term/aaep-term/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, "github.com/aaep-term/aaep-term/")
		if !ok {
			rel = "." // the module's root package
		}
		pkgs = append(pkgs, rel)
	}
	for _, p := range pkgs {
		if !slices.Contains(mapped, p) {
			t.Errorf("package %s is not in design-notes.md's package map", p)
		}
	}
	seen := map[string]bool{}
	for _, m := range mapped {
		if seen[m] {
			t.Errorf("the package map names %s twice", m)
		}
		seen[m] = true
		if !slices.Contains(pkgs, m) {
			t.Errorf("the package map names %s, which is not a package of the module", m)
		}
	}
}
