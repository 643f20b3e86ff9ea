// Package spectest finds the official AAEP spec material (schemas, fixtures)
// for tests that cross-check our own schemas and producer against it.
package spectest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Dir returns the aaep-spec directory: $AAEP_SPEC_DIR, else the first
// shared/aaep-spec found walking up from the working directory, else
// /work/shared/aaep-spec. When none exists the test fails under CI and is
// skipped elsewhere.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("AAEP_SPEC_DIR"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		c := filepath.Join(d, "shared", "aaep-spec")
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	const fallback = "/work/shared/aaep-spec"
	if _, err := os.Stat(fallback); err == nil {
		return fallback
	}
	if os.Getenv("CI") != "" {
		t.Fatal("aaep-spec directory not found; set AAEP_SPEC_DIR")
	}
	t.Skip("aaep-spec directory not found; set AAEP_SPEC_DIR")
	return ""
}

// Official compiles the official schemas. Validate checks a decoded JSON value
// (from jsonschema.UnmarshalJSON) against the schema for its "type" value:
// an event type such as "aaep:agent.tool.invoked" or a handshake type such as
// "subscription.request".
type Official struct {
	schemas map[string]*jsonschema.Schema
}

// LoadOfficial compiles every official schema under dir/schemas.
func LoadOfficial(t testing.TB, dir string) *Official {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	base := filepath.Join(dir, "schemas")
	var files []string
	err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".schema.json") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		if err := c.AddResource(id, doc); err != nil {
			return err
		}
		files = append(files, id)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	o := &Official{schemas: map[string]*jsonschema.Schema{}}
	for _, id := range files {
		s, err := c.Compile(id)
		if err != nil {
			t.Fatalf("compile %s: %v", id, err)
		}
		name := strings.TrimSuffix(filepath.Base(id), ".schema.json")
		if strings.HasPrefix(name, "agent.") {
			name = "aaep:" + name
		}
		o.schemas[name] = s
	}
	return o
}

// Validate checks v against the official schema named by its "type" value.
// It returns an error when the type has no official schema.
func (o *Official) Validate(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object")
	}
	typ, _ := m["type"].(string)
	s, ok := o.schemas[typ]
	if !ok {
		return fmt.Errorf("no official schema for type %q", typ)
	}
	return s.Validate(v)
}

// Has reports whether an official schema exists for the message type.
func (o *Official) Has(typ string) bool { _, ok := o.schemas[typ]; return ok }

// Fixture is one official conformance fixture: a single message.
type Fixture struct {
	Name  string // "valid/agent.session.started.json"
	Valid bool   // from its folder; duplicate-completion-streaming is invalid only across events
	Data  []byte
}

// Fixtures reads every official fixture under dir/fixtures/valid and
// dir/fixtures/invalid; it fails the test when either folder is empty.
func Fixtures(t testing.TB, dir string) []Fixture {
	t.Helper()
	var out []Fixture
	for _, kind := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(dir, "fixtures", kind, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no %s fixtures in %s", kind, dir)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, Fixture{Name: kind + "/" + filepath.Base(f), Valid: kind == "valid", Data: b})
		}
	}
	return out
}
