package capture

import (
	"os"
	"path/filepath"
	"testing"
)

// The agent-tasks extension's messages in a capture are judged by their
// own schemas, not as events: a task sent and a refusal received are
// clean, a refusal that breaks its schema is named under the extensions'
// chapter.
func TestCheckTaskMessages(t *testing.T) {
	t.Parallel()
	head, err := os.ReadFile("testdata/corpus/clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for i, b := range head {
		if b == '\n' {
			first = head[:i+1]
			break
		}
	}
	for _, tt := range []struct {
		name, rec string
		section   string // of the one violation; "" for none
	}{
		{"a task sent", `[1.0, "o", {"type":"agtask:task","text":"fix it","subscription_id":"sub_1","timestamp":"2026-11-29T00:00:00Z"}]`, ""},
		{"a cancel sent", `[1.0, "o", {"type":"agtask:cancel","subscription_id":"sub_1","timestamp":"2026-11-29T00:00:00Z"}]`, ""},
		{"a refusal", `[1.0, "i", {"type":"agtask:refused","refused":"agtask:task","reason":"busy","subscription_id":"sub_1","timestamp":"2026-11-29T00:00:00Z"}]`, ""},
		{"a refusal without its reason", `[1.0, "i", {"type":"agtask:refused","refused":"agtask:task","timestamp":"2026-11-29T00:00:00Z"}]`, "7.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "c.aaep")
			if err := os.WriteFile(f, append(append([]byte{}, first...), tt.rec+"\n"...), 0o600); err != nil {
				t.Fatal(err)
			}
			r := CheckFile(f, CheckOptions{}, nil)
			var got []string
			for _, p := range r.Problems {
				if p.Severity == SeverityViolation {
					got = append(got, p.Section)
				}
			}
			if tt.section == "" && len(got) != 0 || tt.section != "" && (len(got) != 1 || got[0] != tt.section) {
				t.Errorf("violations in sections %v, want %q (%+v)", got, tt.section, r.Problems)
			}
		})
	}
}
