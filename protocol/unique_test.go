package protocol

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// clarification is a valid clarification event; CHOICES is where each
// case puts its choices array.
const clarification = `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.awaiting.clarification","event_id":"evt_1","session_id":"sess_1","sequence_number":3,"timestamp":"2026-11-24T06:57:26.150Z","producer":{"agent_id":"aaep-term-demo","agent_name":"Demo Assistant","agent_version":"1.0.0"},"urgency":"critical","question":"Which time should I book the table for?","timeout_seconds":90,"accepted_response_kinds":["multiple_choice"],"choices":CHOICES,"default_response":"20:00","summary_normal":"Which time?","reply_token":"rpl_1"}`

// Choices are objects under uniqueItems: the decoder decides their
// uniqueness itself (the demo's clarification event, valid, went to the
// schema validator for it), by JSON equality: the same members in any
// order, strings equal once unescaped. Each case agrees with the schema
// validator.
func TestUniqueObjectsDecidedFast(t *testing.T) {
	s := schemas(t)
	tests := []struct {
		name    string
		choices string
		valid   bool
	}{
		{"distinct", `[{"value":"19:00","label":"7 in the evening"},{"value":"20:00","label":"8 in the evening"},{"value":"21:00","label":"9 in the evening"}]`, true},
		{"same labels, other values", `[{"value":"a","label":"x"},{"value":"b","label":"x"}]`, true},
		{"same value, other labels", `[{"value":"a","label":"x"},{"value":"a","label":"y"}]`, true},
		{"twice the same", `[{"value":"a","label":"x"},{"value":"a","label":"x"}]`, false},
		{"twice, members swapped", `[{"value":"a","label":"x"},{"label":"x","value":"a"}]`, false},
		{"twice, one escaped", `[{"value":"a","label":"x"},{"value":"\u0061","label":"x"}]`, false},
		{"twice, escaped key", `[{"value":"a","label":"x"},{"v\u0061lue":"a","label":"x"}]`, false},
		{"twice among three", `[{"value":"a","label":"x"},{"value":"b","label":"x"},{"value":"a","label":"x"}]`, false},
		{"prefix differs", `[{"value":"a","label":"x"},{"value":"ab","label":"x"}]`, true},
		{"non-ASCII", `[{"value":"é","label":"x"},{"value":"e\u0301","label":"x"}]`, true},
		{"32, the most allowed", choices(32, -1), true},
		{"32, the last twice", choices(32, 0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(strings.Replace(clarification, "CHOICES", tt.choices, 1))
			if schemaOK := s.Check(b) == nil; schemaOK != tt.valid {
				t.Fatalf("the schema validator says valid=%v, the case %v", schemaOK, tt.valid)
			}
			d := Decoder{Schemas: s}
			_, err := d.Decode(b)
			if (err == nil) != tt.valid {
				t.Errorf("decoder: %v, want valid=%v", err, tt.valid)
			}
			if tt.valid && d.slow != 0 {
				t.Errorf("a valid event went to the schema validator")
			}
		})
	}
}

// choices returns n choices, distinct unless same ≥ 0: then the last is a
// copy of choice number same.
func choices(n, same int) string {
	var items []string
	for i := range n {
		v := i
		if i == n-1 && same >= 0 {
			v = same
		}
		items = append(items, fmt.Sprintf(`{"value":"v%d","label":"Choice %d"}`, v, v))
	}
	return "[" + strings.Join(items, ",") + "]"
}

// FuzzFastAndSlowAgree decodes each input twice: as Decode does, and with
// every event sent to the schema validator. Both must agree on what is
// valid, find problems at the same pointers and decode the same event: the fast path
// decides only what it decides exactly as the schema validator.
func FuzzFastAndSlowAgree(f *testing.F) {
	f.Add([]byte(typical))
	for _, c := range []string{
		`[{"value":"19:00","label":"7 in the evening"},{"value":"20:00","label":"8 in the evening"}]`,
		`[{"value":"a","label":"x"},{"label":"x","value":"a"}]`,
		`[{"value":"a","label":"x"},{"value":"\u0061","label":"x"}]`,
		`[{"value":"a","label":"x","value":"b"},{"value":"b","label":"x"}]`,
		`[{"value":"a","label":"x"},{"value":"a","label":"x","n":1}]`,
		`[{"value":"\ud800","label":"x"},{"value":"\udc00","label":"x"}]`,
		`[1,1.0]`, `[[1],[1]]`, `[null,null]`, `[true,false]`,
	} {
		f.Add([]byte(strings.Replace(clarification, "CHOICES", c, 1)))
	}
	f.Add([]byte(strings.Replace(clarification, `"accepted_response_kinds":["multiple_choice"]`, `"accepted_response_kinds":["yes_no","yes_no"]`, 1)))
	// The producer and the localization hints are remembered as they are
	// first scanned: every shape of them reads as the schema validator reads it.
	const producer = `"producer":{"agent_id":"research-assistant","agent_name":"Research Assistant","agent_version":"2.3.1"}`
	for _, p := range []string{
		`"producer":{"agent_id":"other"},` + producer,
		producer + `,"producer":{"agent_id":"other"}`,
		`"producer":"research-assistant"`,
		`"producer":["research-assistant"]`,
		`"producer":{}`,
		`"producer" : { "agent\u005fid" : "research-assistant" , "agent_name" : "Research Assistant" }`,
		`"producer":{"agent_id":"research-assistant","agent_name":{"n":"Research Assistant"}}`,
		`"producer":{"agent_id":"research-assistant","agent_id":"other"}`,
		`"producer":{"agent_id":"research-assistant","model":"m\u00e9","x":[{"a":{}}]}`,
		producer + `,"localization_hints":{"primary_language":"en-US","primary_language":"fr"}`,
	} {
		f.Add([]byte(strings.Replace(typical, producer, p, 1)))
	}
	f.Add([]byte(strings.Replace(typical, `"localization_hints":{"primary_language":"en-US","text_direction":"ltr"}`, `"localization_hints":{"text_direction":"sideways","extra":{"a":{"b":{}}}}`, 1)))
	s, err := NewSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, slow := Decoder{Schemas: s}, Decoder{Schemas: s, allSlow: true}
		ef, errF := fast.Decode(b)
		es, errS := slow.Decode(b)
		if (errF == nil) != (errS == nil) {
			t.Fatalf("fast path: %v; schema validator: %v", errF, errS)
		}
		// The same problems, at the same pointers (the validator's wording
		// may list names in any order: it walks a map).
		vf, vs := asValidation(errF), asValidation(errS)
		switch {
		case vf == nil && vs == nil:
			if errF != nil && errF.Error() != errS.Error() {
				t.Fatalf("fast path: %v; schema validator: %v", errF, errS)
			}
		case !slices.Equal(pointers(vf, false), pointers(vs, false)):
			t.Fatalf("fast path: %v; schema validator: %v", errF, errS)
		}
		if !reflect.DeepEqual(ef, es) {
			t.Fatalf("the two paths decoded different events:\n%+v\n%+v", ef, es)
		}
		// A decoder that has decoded events before (typical, then this
		// one) remembers the members it found valid, and skips checking
		// them again: it decides as a fresh one does.
		warm := Decoder{Schemas: s}
		warm.Decode([]byte(typical))
		warm.Decode(b)
		ew, errW := warm.Decode(b)
		if (errW == nil) != (errF == nil) || errW != nil && asValidation(errW) == nil && errW.Error() != errF.Error() ||
			!slices.Equal(pointers(asValidation(errW), false), pointers(vf, false)) {
			t.Fatalf("a decoder used before: %v; a fresh one: %v", errW, errF)
		}
		if !reflect.DeepEqual(ew, ef) {
			t.Fatalf("a decoder used before decoded a different event:\n%+v\n%+v", ew, ef)
		}
	})
}
