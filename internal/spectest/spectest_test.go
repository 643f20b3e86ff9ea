package spectest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The official fixtures must behave as their folder says under the official
// schemas, except duplicate-completion-streaming, whose fault is only visible
// across events (a session-level rule, not a schema rule).
func TestOfficialFixtures(t *testing.T) {
	dir := Dir(t)
	o := LoadOfficial(t, dir)
	for _, kind := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(dir, "fixtures", kind, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no %s fixtures", kind)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			err = o.Validate(v)
			stateful := strings.Contains(f, "duplicate-completion")
			switch {
			case kind == "valid" && err != nil:
				t.Errorf("%s: %v", f, err)
			case kind == "invalid" && err == nil && !stateful:
				t.Errorf("%s: passed the official schema", f)
			}
		}
	}
}
