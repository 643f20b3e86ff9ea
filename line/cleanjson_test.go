package line

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/aaep-term/aaep-term/internal/hostile"
	"github.com/aaep-term/aaep-term/protocol"
)

// sanitizeAll is what CleanJSON must give, decoded: v with every string,
// keys included, passed through protocol.Line.
func sanitizeAll(v any) any {
	switch v := v.(type) {
	case string:
		return protocol.Line(v)
	case []any:
		for i := range v {
			v[i] = sanitizeAll(v[i])
		}
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[protocol.Line(k)] = sanitizeAll(e)
		}
		return out
	}
	return v
}

// keysCollide reports whether two keys of one object in v are the same
// once sanitized ("a" and "a\x7f"): CleanJSON then writes both, as the
// producer sent them, and a decoder keeps only the last, so the decoded
// output is not sanitizeAll's map, whose order is Go's.
func keysCollide(v any) bool {
	switch v := v.(type) {
	case []any:
		return slices.ContainsFunc(v, keysCollide)
	case map[string]any:
		seen := map[string]bool{}
		for k, e := range v {
			if seen[protocol.Line(k)] || keysCollide(e) {
				return true
			}
			seen[protocol.Line(k)] = true
		}
	}
	return false
}

func checkCleanJSON(t *testing.T, raw []byte) {
	t.Helper()
	var in any
	if json.Unmarshal(raw, &in) != nil {
		return
	}
	out := CleanJSON(raw)
	var got any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("CleanJSON(%q) = %q, not JSON: %v", raw, out, err)
	}
	if keysCollide(in) {
		if p := hostile.ProblemsJSON(string(out)); len(p) > 0 {
			t.Fatalf("CleanJSON(%q) = %q: %v", raw, out, p)
		}
	} else if want := sanitizeAll(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("CleanJSON(%q) = %q, want the strings of %v", raw, out, want)
	}
	if again := CleanJSON(out); !bytes.Equal(again, out) {
		t.Fatalf("CleanJSON not idempotent: %q then %q", out, again)
	}
}

func TestCleanJSON(t *testing.T) {
	checkCleanJSON(t, []byte(`{"a":[1,2.5,true,null,{"b":"c"}],"d":{}}`))
	for _, c := range hostile.Cases {
		raw, _ := json.Marshal(map[string]any{"type": c.S, c.S: []any{c.S, 1, map[string]any{"x": c.S}}})
		checkCleanJSON(t, raw)
		if p := hostile.ProblemsJSON(string(CleanJSON(raw))); len(p) > 0 {
			t.Errorf("%s: %v", c.Name, p)
		}
	}
}

func FuzzCleanJSON(f *testing.F) {
	f.Add([]byte(`{"type":"aaep:agent.session.started","summary_normal":"a\u001b[2Jb\nc","n":[1,{"k":"\u202e"}]}`))
	f.Add([]byte(`"\u0085"`))
	f.Add([]byte(`[]`))
	f.Fuzz(checkCleanJSON)
}

func BenchmarkCleanJSON(b *testing.B) {
	for name, raw := range map[string]string{
		"clean":        `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.tool.invoked","event_id":"evt_1","session_id":"sess_1","timestamp":"2026-06-30T14:22:10.100Z","producer":{"agent_id":"bank","agent_name":"Banque Privée"},"sequence_number":3,"summary_normal":"Lecture du relevé."}`,
		"with escapes": `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.tool.invoked","event_id":"evt_1","session_id":"sess_1","timestamp":"2026-06-30T14:22:10.100Z","producer":{"agent_id":"bank","agent_name":"Banque Privée"},"sequence_number":3,"summary_normal":"Lecture du relevé.\nDeux lignes."}`,
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				_ = CleanJSON([]byte(raw))
			}
		})
	}
}
