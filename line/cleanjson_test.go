package line

import (
	"bytes"
	"encoding/json"
	"reflect"
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
	if want := sanitizeAll(in); !reflect.DeepEqual(got, want) {
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
