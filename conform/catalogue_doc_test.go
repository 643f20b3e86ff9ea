package conform

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the catalogue table in docs/conformance.md")

const (
	tableBegin = "<!-- catalogue:begin -->\n"
	tableEnd   = "<!-- catalogue:end -->"
)

// catalogueTable is the catalogue as the Markdown table of docs/conformance.md.
func catalogueTable() string {
	var b strings.Builder
	b.WriteString("| Test | Tests a | Level | Spec section | What it checks |\n|---|---|---|---|---|\n")
	for _, t := range Catalogue() {
		req := strings.ReplaceAll(t.Requirement, "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s | %d | %s | %s |\n", t.ID, t.Role, t.Level, t.Section, req)
	}
	fmt.Fprintf(&b, "\nCatalogue SHA-256: `%s`.\n", CatalogueHash())
	return b.String()
}

// The table of tests in docs/conformance.md is the catalogue's: it cannot
// drift from what the suite checks.
func TestConformanceDocTable(t *testing.T) {
	const page = "../docs/conformance.md"
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the catalogue markers", page)
	}
	want := catalogueTable()
	if got := doc[i+len(tableBegin) : j]; got != want {
		if *update {
			if err := os.WriteFile(page, []byte(doc[:i+len(tableBegin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the table of tests in %s is not the catalogue's; run go test ./conform -run TestConformanceDocTable -update", page)
	}
}

// Every test of the catalogue has an ID unique across roles, a role, a
// level from 1 to 3, a requirement and a spec section: what the table,
// the reports and the receipts rely on.
func TestCatalogueWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range Catalogue() {
		if seen[tt.ID] || tt.ID == "" {
			t.Errorf("test ID %q is empty or not unique", tt.ID)
		}
		seen[tt.ID] = true
		if tt.Level < 1 || tt.Level > 3 || tt.Requirement == "" || tt.Section == "" || (tt.Role != RoleProducer && tt.Role != RoleSubscriber) {
			t.Errorf("test %+v is incomplete", tt)
		}
	}
}
