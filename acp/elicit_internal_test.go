package acp

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// Each answer is checked against its field's schema before the agent
// gets it: enum, boolean, number, integer, string bounds, pattern,
// format, lists, and leaving out an optional field.
func TestFieldCheck(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{
		"db":{"type":"string","enum":["pg","my"],"enumNames":["Postgres","MySQL"]},
		"ok":{"type":"boolean"},
		"n":{"type":"number","minimum":0.5,"maximum":2},
		"i":{"type":"integer","minimum":1},
		"s":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-z]+$"},
		"mail":{"type":"string","format":"email"},
		"day":{"type":"string","format":"date"},
		"many":{"type":"array","items":{"anyOf":[{"const":"a","title":"Apple"},{"const":"b","title":"Banana"}]},"maxItems":2}
	},"required":["db","ok","n","i","s"]}`
	fields, err := formFields(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]field{}
	for _, f := range fields {
		byKey[f.key] = f
	}
	if got := fmt.Sprintln(len(fields), fields[0].key, fields[7].key); got != "8 db many\n" {
		t.Fatalf("fields %s, want 8 in the schema's order", got)
	}
	for _, c := range []struct {
		key    string
		answer any
		want   string // the value sent, as JSON; "" when refused; "skip" when left out
	}{
		{"db", "my", `"my"`},
		{"db", "Postgres", `"pg"`},
		{"db", "2", `"my"`},
		{"db", "oracle", ""},
		{"db", "-", ""}, // required
		{"ok", true, `true`},
		{"ok", "no", `false`},
		{"ok", "maybe", ""},
		{"n", 1.5, `1.5`},
		{"n", 3.0, ""},
		{"n", 0.1, ""},
		{"n", "1", `1`},
		{"i", 2.0, `2`},
		{"i", 2.5, ""},
		{"i", 0.0, ""},
		{"s", "abc", `"abc"`},
		{"s", "a", ""},
		{"s", "abcde", ""},
		{"s", "ab1", ""},
		{"s", 7.0, ""},
		{"mail", "a@b.example", `"a@b.example"`},
		{"mail", "nobody", ""},
		{"mail", "-", "skip"},
		{"day", "2026-11-29", `"2026-11-29"`},
		{"day", "tomorrow", ""},
		{"many", "apple, b", `["a","b"]`},
		{"many", "a, b, a", ""},
		{"many", "cherry", ""},
	} {
		v, skip, err := byKey[c.key].check(c.answer)
		got := ""
		switch {
		case skip:
			got = "skip"
		case err == nil:
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != c.want {
			t.Errorf("%s answered %#v: got %s (%v), want %s", c.key, c.answer, got, err, c.want)
		}
	}
}

// Whatever form an agent asks to fill in, the bridge neither panics nor
// writes a clarification our schemas refuse, and refuses forms it cannot
// ask rather than asking part of them.
func FuzzElicitation(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","oneOf":[{"const":"x","title":"X"},{"const":"y"}]},"b":{"type":"boolean"}},"required":["a"]}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":-3,"maximum":1e300,"title":"\u001b[2J"}}}`,
		`{"type":"object","properties":{"l":{"type":"array","items":{"enum":["p","q"]}}}}`,
		`{"type":"object","properties":{"e":{"type":"string","enum":["only"]}}}`,
		`{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"o":{"type":"object"}}}`,
		`[]`,
	} {
		f.Add([]byte(s), "answer")
	}
	schemas, err := protocol.NewSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, schema []byte, answer string) {
		fields, err := formFields(schema)
		if err != nil {
			return
		}
		b := testBridge()
		e := &elicitation{message: "Fill it in", fields: fields, content: map[string]any{}}
		for i := range max(len(fields), 1) {
			e.next = i
			m := b.ask(e)
			if err := schemas.Check(m); err != nil {
				t.Fatalf("invalid clarification %s: %v", m, err)
			}
			if i < len(fields) {
				fields[i].check(answer)
			}
		}
		b.takeElicitations()
	})
}
