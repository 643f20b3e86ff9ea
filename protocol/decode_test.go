package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/capturetest"
	"github.com/aaep-term/aaep-term/internal/spectest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// typical is a valid ~500-byte event as deployed producers send them.
const typical = `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.tool.invoked","event_id":"evt_00000000000000a1","session_id":"sess_000000000007","sequence_number":3,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"research-assistant","agent_name":"Research Assistant","agent_version":"2.3.1"},"urgency":"normal","localization_hints":{"primary_language":"en-US","text_direction":"ltr"},"tool":"fetch_report","tool_call_id":"call_17","args_summary":"quarter: Q3, region: EMEA","risk_level":"low","irreversible":false,"summary_terse":"Fetching.","summary_normal":"Fetching the Q3 report for EMEA."}`

func schemas(t testing.TB) *Schemas {
	t.Helper()
	s, err := NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Our schemas agree with the official ones on the official fixtures: every
// valid one decodes without a problem, every invalid one is reported
// (except duplicate-completion-streaming, whose fault only shows across
// events and is the session engine's to catch).
func TestOfficialFixtures(t *testing.T) {
	dir := spectest.Dir(t)
	s := schemas(t)
	d := Decoder{Schemas: s}
	for _, kind := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(dir, "fixtures", kind, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no %s fixtures in %s", kind, dir)
		}
		for _, f := range files {
			t.Run(kind+"/"+filepath.Base(f), func(t *testing.T) {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var err2 error
				if strings.HasPrefix(PeekType(b), "aaep:") {
					_, err2 = d.Decode(b)
				} else {
					err2 = s.Check(b)
				}
				wantValid := kind == "valid" || strings.Contains(f, "duplicate-completion")
				if wantValid && err2 != nil {
					t.Errorf("valid fixture rejected: %v", err2)
				}
				var ve *ValidationError
				if !wantValid && !errors.As(err2, &ve) {
					t.Errorf("invalid fixture accepted (err %v)", err2)
				}
			})
		}
	}
}

// Every official schema keyword we rely on exists in ours: the examples in
// the official schemas validate against our schemas exactly as they do
// against theirs.
func TestOfficialSchemaExamples(t *testing.T) {
	dir := spectest.Dir(t)
	official := spectest.LoadOfficial(t, dir)
	ours := schemas(t)
	files, _ := filepath.Glob(filepath.Join(dir, "schemas", "*", "*.schema.json"))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Examples []json.RawMessage `json:"examples"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for i, ex := range doc.Examples {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(ex))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := v.(map[string]any)["type"]; !ok {
				continue // envelope fragments
			}
			theirs := official.Validate(v) == nil
			mine := ours.Check(ex) == nil
			if theirs != mine {
				t.Errorf("%s example %d: official valid=%v, ours valid=%v", filepath.Base(f), i, theirs, mine)
			}
			n++
		}
	}
	if n < 12 {
		t.Errorf("only %d examples checked", n)
	}
}

func TestDecodeFields(t *testing.T) {
	var d Decoder
	ev, err := d.Decode([]byte(typical))
	if err != nil {
		t.Fatal(err)
	}
	want := Event{
		Context: []string{ContextURL}, AAEPVersion: "1.0.0", Type: TypeToolInvoked,
		EventID: "evt_00000000000000a1", SessionID: "sess_000000000007", Seq: 3, HasSeq: true,
		Timestamp: time.Date(2026, 6, 30, 14, 22, 11, 342e6, time.UTC),
		Producer:  Producer{AgentID: "research-assistant", AgentName: "Research Assistant", AgentVersion: "2.3.1"},
		Urgency:   UrgencyNormal, Localization: LocalizationHints{PrimaryLanguage: "en-US", TextDirection: "ltr"},
		Tool: "fetch_report", ToolCallID: "call_17", ArgsSummary: "quarter: Q3, region: EMEA", RiskLevel: "low",
		Irreversible: new(bool), SummaryTerse: "Fetching.", SummaryNormal: "Fetching the Q3 report for EMEA.",
	}
	ev.Raw = nil
	if got, w := fmt.Sprintf("%+v", *ev), fmt.Sprintf("%+v", want); strings.ReplaceAll(got, fmt.Sprint(ev.Irreversible), "") != strings.ReplaceAll(w, fmt.Sprint(want.Irreversible), "") {
		t.Errorf("decoded\n%s\nwant\n%s", got, w)
	}
	if ev.Irreversible == nil || *ev.Irreversible {
		t.Errorf("Irreversible = %v, want false", ev.Irreversible)
	}
}

func TestDecodePayloads(t *testing.T) {
	var d Decoder
	envelope := `"@context":["https://aaep-protocol.org/context/v1","https://example.org/medai/v1"],"event_id":"evt_1","session_id":"sess_1","timestamp":"2026-06-30T15:22:11+01:00","producer":{"agent_id":"a"}`
	tests := []struct {
		body  string
		check func(*Event) bool
	}{
		{`"type":"https://aaep-protocol.org/types/agent.session.started","summary_normal":"S\u00e9ance \"d\u00e9marr\u00e9e\"\n","tools_available":["a","b"]`,
			func(e *Event) bool {
				return e.Type == TypeSessionStarted && e.SummaryNormal == "Séance \"démarrée\"\n" && slices.Equal(e.ToolsAvailable, []string{"a", "b"}) &&
					e.Timestamp.Equal(time.Date(2026, 6, 30, 14, 22, 11, 0, time.UTC)) && len(e.Context) == 2
			}},
		{`"type":"aaep:agent.progress.updated","progress":{"percent":42.5,"step":2,"total_steps":4}`,
			func(e *Event) bool {
				return e.Progress.HasPercent && e.Progress.Percent == 42.5 && e.Progress.Step == 2 && e.Progress.TotalSteps == 4
			}},
		{`"type":"aaep:agent.awaiting.clarification","urgency":"critical","question":"Which?","reply_token":"rpl_9","timeout_seconds":60,"accepted_response_kinds":["multiple_choice"],"choices":[{"value":"a","label":"Option A"},{"value":"b","label":"Option B"}],"default_response":"a","context":"why"`,
			func(e *Event) bool {
				return e.ReplyToken == "rpl_9" && e.TimeoutSeconds == 60 && len(e.Choices) == 2 && e.Choices[1].Label == "Option B" &&
					e.HasDefaultResponse && e.DefaultResponse == "a" && e.ClarifyContext == "why" && e.IsCritical()
			}},
		{`"type":"aaep:agent.awaiting.confirmation","urgency":"critical","action":"Pay","consequence":"Money leaves","reply_token":"rpl_1","timeout_seconds":120,"default_decision":"reject","risk_level":"high","irreversible":true,"extra_context":{"amount":500},"allowed_replies":["accept","reject"]`,
			func(e *Event) bool {
				return *e.Irreversible && string(e.ExtraContext) == `{"amount":500}` && e.DefaultDecision == "reject" && len(e.AllowedReplies) == 2
			}},
		{`"type":"aaep:agent.output.streaming","chunk":"Hello. ","position":0,"complete":true,"output_id":"out_1","coalesce_hint":"sentence","language":"yo-NG","extensions":{"medai":{"x":1}}`,
			func(e *Event) bool {
				return e.Chunk == "Hello. " && e.Complete && e.OutputID == "out_1" && string(ext(e, "medai")) == `{"x":1}`
			}},
		{`"type":"medai:patient.consulted","summary_normal":"Consulted."`,
			func(e *Event) bool { return e.Type == "medai:patient.consulted" && e.SummaryNormal == "Consulted." }},
	}
	for _, tt := range tests {
		b := []byte("{" + envelope + "," + tt.body + "}")
		ev, err := d.Decode(b)
		if err != nil {
			t.Errorf("%s: %v", tt.body, err)
			continue
		}
		if !tt.check(ev) {
			t.Errorf("%s: decoded %+v", tt.body, ev)
		}
	}
}

// Problems name their JSON pointers, and the event still comes back.
func TestDecodeProblems(t *testing.T) {
	var d Decoder
	base := map[string]any{}
	if err := json.Unmarshal([]byte(typical), &base); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		change   func(m map[string]any)
		pointers []string
	}{
		{"bad event id", func(m map[string]any) { m["event_id"] = "event-1" }, []string{"/event_id"}},
		{"sequence not integer", func(m map[string]any) { m["sequence_number"] = 1.5 }, []string{"/sequence_number"}},
		{"negative sequence", func(m map[string]any) { m["sequence_number"] = -1 }, []string{"/sequence_number"}},
		{"missing tool and summary", func(m map[string]any) { delete(m, "tool"); delete(m, "summary_normal") }, []string{"/tool", "/summary_normal"}},
		{"undefined top-level member", func(m map[string]any) { m["colour"] = "red" }, []string{"/colour"}},
		{"another type's member", func(m map[string]any) { m["status"] = "success" }, []string{"/status"}},
		{"critical type without urgency", func(m map[string]any) {
			m["type"], m["error_category"] = TypeSessionErrored, "permanent"
			for _, k := range []string{"tool", "tool_call_id", "args_summary", "risk_level", "irreversible", "urgency"} {
				delete(m, k)
			}
		}, []string{"/urgency"}},
		{"producer extra member", func(m map[string]any) { m["producer"].(map[string]any)["secret"] = "x" }, []string{"/producer"}},
		{"bad timestamp", func(m map[string]any) { m["timestamp"] = "yesterday" }, []string{"/timestamp"}},
		{"wrong urgency and risk", func(m map[string]any) { m["urgency"] = "loud"; m["risk_level"] = "extreme" }, []string{"/risk_level", "/urgency"}},
		{"unknown core type", func(m map[string]any) { m["type"] = "aaep:agent.dreaming" }, []string{"/type"}},
		{"context not first", func(m map[string]any) { m["@context"] = []any{"https://example.org/x", ContextURL} }, []string{"/@context"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := clone(base)
			tt.change(m)
			b, _ := json.Marshal(m)
			ev, err := d.Decode(b)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a ValidationError", err)
			}
			if ev == nil || ev.EventID == "" && tt.name != "bad event id" {
				t.Errorf("event not returned with the error")
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Pointer)
			}
			for _, p := range tt.pointers {
				if !slices.Contains(got, p) {
					t.Errorf("problems %v do not name %q", ve.Problems, p)
				}
			}
		})
	}
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var c map[string]any
	_ = json.Unmarshal(b, &c)
	return c
}

func TestDecodeHostile(t *testing.T) {
	var d Decoder
	withSummary := func(s string) []byte {
		return []byte(strings.Replace(typical, `"Fetching the Q3 report for EMEA."`, s, 1))
	}
	t.Run("not JSON", func(t *testing.T) {
		for _, in := range []string{"", "   ", "nope", "[1,2]", `{"a":}`, `{"a":1} x`, `{"a":"\x01"}`, `{"a":"\u12"}`, `{"a":01}`,
			typical + "\x00", typical + " \x00}", `{"a":1}` + "\x00"} {
			ev, err := d.Decode([]byte(in))
			var se *SyntaxError
			if ev != nil || !errors.As(err, &se) {
				t.Errorf("Decode(%q): an event: %v, error %v; want none and a SyntaxError", in, ev != nil, err)
			}
		}
	})
	t.Run("10 MB line", func(t *testing.T) {
		b := withSummary(`"` + strings.Repeat("a", 10<<20) + `"`)
		ev, err := d.Decode(b)
		var le *LimitError
		if ev != nil || !errors.As(err, &le) || le.What != "size" {
			t.Errorf("got %v, %v; want a size LimitError", ev, err)
		}
	})
	t.Run("deep nesting", func(t *testing.T) {
		b := []byte(strings.Replace(typical, `"irreversible":false`, `"x":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000), 1))
		ev, err := d.Decode(b)
		var le *LimitError
		if ev != nil || !errors.As(err, &le) || le.What != "depth" {
			t.Errorf("got %v, %v; want a depth LimitError", ev, err)
		}
	})
	t.Run("over the soft size limit", func(t *testing.T) {
		b := []byte(strings.Replace(typical, `"irreversible":false`, `"irreversible":false,"x":"`+strings.Repeat("b", 70000)+`"`, 1))
		ev, err := d.Decode(b)
		var ve *ValidationError
		if ev == nil || ev.Tool != "fetch_report" || !errors.As(err, &ve) || !strings.Contains(ve.Error(), "65536-byte limit") {
			t.Errorf("got %v, %v; want the event and a size problem", ev != nil, err)
		}
	})
	t.Run("escape sequences in a summary", func(t *testing.T) {
		ev, err := d.Decode(withSummary(`"\u001b]0;owned\u0007\u001b[2JDone \u202eevil"`))
		if err != nil {
			t.Fatal(err)
		}
		if got := ev.SummaryNormal.String(); got != "Done evil" {
			t.Errorf("shown as %q", got)
		}
	})
	t.Run("invalid UTF-8 in a summary", func(t *testing.T) {
		ev, err := d.Decode(withSummary("\"caf\xe9\""))
		if ev == nil {
			t.Fatalf("event lost: %v", err)
		}
		if got := ev.SummaryNormal.String(); got != "caf\uFFFD" {
			t.Errorf("shown as %q", got)
		}
	})
	t.Run("duplicate keys: the last wins, as in encoding/json", func(t *testing.T) {
		ev, _ := d.Decode([]byte(strings.Replace(typical, `"tool":"fetch_report"`, `"tool":"first","tool":"second"`, 1)))
		if ev == nil || ev.Tool != "second" {
			t.Errorf("tool = %v", ev)
		}
	})
}

func TestPeekAndNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"type":"subscription.accepted","x":[1,{"type":"no"}]}`, "subscription.accepted"},
		{`{"x":{"type":"nested"},"type":"https://aaep-protocol.org/types/agent.tool.completed"}`, TypeToolCompleted},
		{`{"type":"aaep:agent.session.started"}`, TypeSessionStarted},
		{`{"ty\u0070e":"esc"}`, ""}, // keys are compared as sent
		{`not json`, ""},
		{`{"type":5}`, ""},
		{`{"a":"b","type":"}`, ""}, // the type string never ends
		{"{\"type\":\"a\n\"}", ""},
	}
	for _, tt := range tests {
		if got := PeekType([]byte(tt.in)); got != tt.want {
			t.Errorf("PeekType(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := NormalizeType("medai:x"); got != "medai:x" {
		t.Errorf("NormalizeType changed an extension type: %q", got)
	}
}

// The hand-written pattern matchers agree with the regular expressions.
func TestKnownPatterns(t *testing.T) {
	inputs := []string{"", "evt_", "evt_a", "evt_A9z", "evt_a-b", "evt_" + strings.Repeat("a", 64), "evt_" + strings.Repeat("a", 65),
		"sess_1", "call_x", "out_9", "rpl_abc", "sub_Z", "en", "en-US", "yo-NG", "zh-Hans", "es-419", "1en", "en-", "-en", "toolongtag",
		"en-123456789", "fetch_report", "_x", "9x", "a.b-c", "1.0.0", "1.0", "1.0.0-rc.1", "1.0.0-", "Latn", "latn", "LATN",
		"AUTH_FAILED", "A", "user_cancel", "u", "text/plain", "application/vnd.x+json", "text/", "/x", "a.b.c", "a..c", "a.b.c.d", "é", "evt_é"}
	for pattern, fast := range knownPatterns {
		re := regexp.MustCompile(pattern)
		for _, in := range inputs {
			if got, want := fast(in), re.MatchString(in); got != want {
				t.Errorf("pattern %s on %q: fast %v, regexp %v", pattern, in, got, want)
			}
		}
	}
}

func FuzzKnownPatterns(f *testing.F) {
	for _, s := range []string{"evt_1", "en-US", "1.0.0-rc", "text/plain", "a.b.c", "AUTH_X"} {
		f.Add(s)
	}
	res := map[string]*regexp.Regexp{}
	for p := range knownPatterns {
		res[p] = regexp.MustCompile(p)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for p, fast := range knownPatterns {
			if fast(in) != res[p].MatchString(in) {
				t.Fatalf("pattern %s disagrees on %q", p, in)
			}
		}
	})
}

// FuzzDecode checks the decoder never panics, agrees with encoding/json on
// what is JSON, and never calls valid what the schema validator rejects.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(typical))
	files, _ := filepath.Glob(filepath.Join(spectest.Dir(f), "fixtures", "*", "*.json"))
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	edge, err := os.ReadFile(filepath.Join("testdata", "edge-messages.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(edge), []byte("\n")) {
		f.Add(line)
	}
	for _, s := range []string{`{}`, `{"type":"aaep:agent.session.started"}`, `[`, `{"a":"\ud800"}`, `{"timestamp":"2026-06-30t14:22:11z"}`, "{\"a\n:1}", "{\"\\",
		`{"type":"subscription.close","subscription_id":"sub_1"}`, `{"type":"confirmation.reply"}`, `{"type":"medai:x","urgency":"panic","x":1}`,
		strings.Replace(typical, `"urgency":"normal"`, `"urgency":"panic","colour":"red","status":"ok"`, 1)} {
		f.Add([]byte(s))
	}
	s, err := NewSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := Decoder{Schemas: s}
		ev, err := d.Decode(b)
		var se *SyntaxError
		var le *LimitError
		var ne *NotEventError
		isObject := json.Valid(b) && bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{"))
		switch {
		case errors.As(err, &ne):
			if ev != nil || KindOf(ne.Type) == KindEvent {
				t.Fatalf("NotEventError for %q (event %v)", ne.Type, ev != nil)
			}
			return
		case errors.As(err, &le):
		case errors.As(err, &se):
			if isObject {
				t.Fatalf("SyntaxError on a JSON object: %v", err)
			}
		default:
			if !isObject {
				t.Fatalf("accepted something that is not a JSON object: %v", err)
			}
			if ev == nil {
				t.Fatalf("no event and no decoding error: %v", err)
			}
		}
		if ev == nil {
			return
		}
		// The decoder and the schema validator find the same problems, at
		// the same pointers; the decoder adds only the soft limits.
		var ve *ValidationError
		errors.As(err, &ve)
		if got, want := pointers(ve, true), pointers(asValidation(s.Check(b)), false); !slices.Equal(got, want) {
			t.Fatalf("decoder problems at %q, schema validator at %q (%v)", got, want, err)
		}
	})
}

// Mutating valid events member by member, the fast path never accepts what
// the schema validator rejects, and decides valid events on its own.
func TestFastPathAgreesWithSchema(t *testing.T) {
	s := schemas(t)
	d := Decoder{Schemas: s}
	seeds := [][]byte{[]byte(typical)}
	files, _ := filepath.Glob(filepath.Join(spectest.Dir(t), "fixtures", "valid", "agent.*.json"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		seeds = append(seeds, b)
	}
	values := []any{nil, "", "x", "evt_1", "https://example.org/a", "2026-02-30T10:00:00Z", "critical", "reject",
		0, -1, 1, 1.5, 86401, 100, 101, true, false, []any{}, []any{"a", "a"}, []any{"a"}, map[string]any{}, strings.Repeat("é", 4097)}
	checked, mismatches := 0, 0
	for _, seed := range seeds {
		before := d.slow
		if _, err := d.Decode(seed); err != nil {
			t.Fatalf("seed invalid: %v", err)
		}
		if d.slow != before {
			t.Errorf("a valid seed needed the slow path: %.80s", seed)
		}
		var m map[string]any
		_ = json.Unmarshal(seed, &m)
		keys := append(slices.Collect(mapsKeys(m)), "risk_level", "irreversible", "urgency", "progress")
		for _, k := range keys {
			for _, v := range values {
				c := clone(m)
				if v == nil {
					delete(c, k)
				} else {
					c[k] = v
				}
				b, _ := json.Marshal(c)
				_, err := d.Decode(b)
				schemaOK := s.Check(b) == nil
				var ve *ValidationError
				fastOK := err == nil || errors.As(err, &ve) && onlyLimits(ve)
				checked++
				if fastOK != schemaOK {
					mismatches++
					if mismatches < 10 {
						t.Errorf("%s=%v: decoder ok=%v, schema ok=%v (%v)", k, v, fastOK, schemaOK, err)
					}
				}
			}
		}
	}
	t.Logf("%d mutations checked", checked)
}

// pointers lists the pointers of ve's problems, sorted, without the soft
// limits' when noLimits.
func pointers(ve *ValidationError, noLimits bool) []string {
	if ve == nil {
		return nil
	}
	var out []string
	for _, p := range ve.Problems {
		if !noLimits || p.Code != ProblemLimit {
			out = append(out, p.Pointer)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func asValidation(err error) *ValidationError {
	var ve *ValidationError
	errors.As(err, &ve)
	return ve
}

// Language variants of a type's text members (spec 11.5.1) are decided on
// the fast path, like any defined member.
func TestLanguageVariantsFast(t *testing.T) {
	d := Decoder{Schemas: schemas(t)}
	b := []byte(strings.Replace(typical, `"urgency":"normal"`, `"urgency":"normal","summary_normal_yo":"Mo ń ṣírò.","args_summary_zh_Hant":"x"`, 1))
	if _, err := d.Decode(b); err != nil || d.slow != 0 {
		t.Errorf("err %v, slow path taken %d times", err, d.slow)
	}
	b = []byte(strings.Replace(typical, `"urgency":"normal"`, `"urgency":"normal","action_fr":"Payer"`, 1))
	if _, err := d.Decode(b); pointers(asValidation(err), true) == nil || pointers(asValidation(err), true)[0] != "/action_fr" {
		t.Errorf("a variant of another type's member: %v", err)
	}
}

func onlyLimits(ve *ValidationError) bool {
	for _, p := range ve.Problems {
		if !strings.Contains(p.Message, "limit") {
			return false
		}
	}
	return true
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	var d Decoder
	in := []byte(typical)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Decode(in); err != nil {
			b.Fatal(err)
		}
	}
}

// flood is an event of producer.Flood's stream (what aaep-listen's
// end-to-end benchmark reads): numbers right-aligned in slots of spaces.
const flood = `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.progress.updated","event_id":"evt_8a00f8700000000000000002","session_id":"sess_8a00f87000000000","sequence_number":                   1,"timestamp":"2026-11-29T12:52:11.025Z","producer":{"agent_id":"aaep-term-flood","agent_name":"Load test producer","agent_version":"1.0.0"},"verbosity":"normal","urgency":"background","localization_hints":{"primary_language":"en-US","text_direction":"ltr"},"progress":{"step":                   1},"summary_normal":"Load test progress: ."}`

// BenchmarkDecodeFlood decodes the events of a flood, one decoder for all
// as a listener has.
func BenchmarkDecodeFlood(b *testing.B) {
	var d Decoder
	in := []byte(flood)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Decode(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeFloodStream decodes the events of a flood as
// producer.Flood makes them (floodEvent: 64 sessions in turn, each
// event's ID, session, sequence number and progress step its own), one
// decoder for all, Decode as the listener calls it.
func BenchmarkDecodeFloodStream(b *testing.B) {
	events := make([][]byte, 4096)
	for i := range events {
		events[i] = floodEvent(i)
	}
	decodeInTurn(b, events)
}

// decodeInTurn decodes events in turn with one decoder, as a listener
// does, for b.
func decodeInTurn(b *testing.B, events [][]byte) {
	var d Decoder
	b.SetBytes(int64(len(events[0])))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := d.Decode(events[i%len(events)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkDecodeStream decodes a stream of 1,024 events, as a listener
// does: the typical event with its ID, sequence number, timestamp and
// tool call ID new in each, the rest repeated.
func BenchmarkDecodeStream(b *testing.B) {
	events := make([][]byte, 1024)
	t0 := time.Date(2026, 6, 30, 14, 22, 11, 0, time.UTC)
	for i := range events {
		ev := strings.Replace(typical, `"evt_00000000000000a1"`, fmt.Sprintf(`"evt_%016x"`, i), 1)
		ev = strings.Replace(ev, `"sequence_number":3`, fmt.Sprintf(`"sequence_number":%d`, i), 1)
		ev = strings.Replace(ev, `"2026-06-30T14:22:11.342Z"`, `"`+t0.Add(time.Duration(i)*time.Millisecond).Format("2006-01-02T15:04:05.000Z")+`"`, 1)
		events[i] = []byte(strings.Replace(ev, `"call_17"`, fmt.Sprintf(`"call_%d"`, i), 1))
	}
	decodeInTurn(b, events)
}

// BenchmarkDecodeStdlib is the yardstick: encoding/json into a struct of
// the same members, validating nothing.
func BenchmarkDecodeStdlib(b *testing.B) {
	type producer struct {
		AgentID      string `json:"agent_id"`
		AgentName    string `json:"agent_name"`
		AgentVersion string `json:"agent_version"`
	}
	var ev struct {
		Context      any               `json:"@context"`
		Version      string            `json:"aaep_version"`
		Type         string            `json:"type"`
		EventID      string            `json:"event_id"`
		SessionID    string            `json:"session_id"`
		Seq          int64             `json:"sequence_number"`
		Timestamp    time.Time         `json:"timestamp"`
		Producer     producer          `json:"producer"`
		Urgency      string            `json:"urgency"`
		Localization map[string]string `json:"localization_hints"`
		Tool         string            `json:"tool"`
		ToolCallID   string            `json:"tool_call_id"`
		Args         string            `json:"args_summary"`
		Risk         string            `json:"risk_level"`
		Irreversible bool              `json:"irreversible"`
		Terse        string            `json:"summary_terse"`
		Normal       string            `json:"summary_normal"`
	}
	in := []byte(typical)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := json.Unmarshal(in, &ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSchemaValidate(b *testing.B) {
	s := schemas(b)
	in := []byte(typical)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if err := s.Check(in); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzPeekType: any input, however broken, gives a type or "" without
// panicking, and a type only when the input holds one.
func FuzzPeekType(f *testing.F) {
	for _, s := range []string{`{"type":"aaep:agent.session.started"}`, `{"a":"b","type":"}`, `{"type":`, `[`,
		typical, `{"type":1,"type":"aaep:agent.tool.invoked"}`, `{"t\u0079pe":"aaep:agent.tool.invoked"}`, `{"type":"aaep:agent.tool.invoked","t\u0079pe":"x"}`,
		`{"type":"https://aaep-protocol.org/types/agent.tool.invoked"}`, `{"x":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `,"type":"aaep:agent.tool.invoked"}`} {
		f.Add([]byte(s))
	}
	s := schemas(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		typ := PeekType(b)
		if typ != "" && !bytes.Contains(b, []byte(`"type"`)) {
			t.Errorf("PeekType(%q) = %q without a type member", b, typ)
		}
		// A Decoder tells it of the message it decoded without reading it again.
		d := Decoder{Schemas: s}
		ev, _ := d.Decode(b)
		if got := d.PeekedType(b, ev); got != typ {
			t.Errorf("PeekedType(%q) = %q, PeekType %q", b, got, typ)
		}
	})
}

// TestPeekedType: a Decoder tells the type PeekType finds of the event it
// decoded last; of another event it asks PeekType.
func TestPeekedType(t *testing.T) {
	d := Decoder{Schemas: schemas(t)}
	b := []byte(typical)
	ev, err := d.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.PeekedType(b, ev); got != TypeToolInvoked {
		t.Errorf("PeekedType = %q", got)
	}
	other := []byte(strings.Replace(typical, `"tool":"fetch_report"`, `"tool":"x","tool":"fetch_report"`, 1))
	if _, err := d.Decode(other); err != nil {
		t.Fatal(err)
	}
	if got := d.PeekedType(b, ev); got != TypeToolInvoked {
		t.Errorf("PeekedType of an event decoded before the last = %q", got)
	}
	// An event is not taken for a message refused after it.
	ev, _ = d.Decode(b)
	if _, err := d.Decode([]byte("[1]")); err == nil {
		t.Fatal("[1] decoded")
	}
	if got := d.PeekedType([]byte("[1]"), ev); got != "" {
		t.Errorf("PeekedType of [1] after an event = %q", got)
	}
}

// A string's length is counted in characters, not bytes, whether its
// characters come as UTF-8 or as \u escapes: summary_terse holds at most
// 4096. The decoder skips looking at a string again only when the scanner
// saw it hold no byte of 0x80 or above and no escape; it decides a valid
// string itself, and leaves bytes that are not UTF-8 to the schema
// validator (encoding/json would replace them).
func TestDecodeLengthInCharacters(t *testing.T) {
	for _, tc := range []struct {
		name  string
		terse string
		valid bool
		slow  bool // the schema validator is asked
	}{
		{"ascii at the limit", strings.Repeat("e", 4096), true, false},
		{"ascii over the limit", strings.Repeat("e", 4097), false, true},
		{"utf-8 at the limit", strings.Repeat("é", 4096), true, false},
		{"utf-8 over the limit", strings.Repeat("é", 4097), false, true},
		{"escapes at the limit", strings.Repeat(`\u00e9`, 4096), true, false},
		{"escapes over the limit", strings.Repeat(`\u00e9`, 4097), false, true},
		{"ascii escapes over the limit", strings.Repeat(`\u0065`, 4097), false, true},
		{"mixed at the limit", strings.Repeat("e", 4095) + `\u00e9`, true, false},
		{"not utf-8", "Fetching \xff.", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(typical, `"summary_terse":"Fetching."`, `"summary_terse":"`+tc.terse+`"`, 1)
			for _, slow := range []bool{false, true} {
				d := Decoder{allSlow: slow, Limits: Limits{MaxString: 32 << 10}} // the size limit is not what is tested
				_, err := d.Decode([]byte(in))
				var ve *ValidationError
				if err != nil && !errors.As(err, &ve) {
					t.Fatalf("slow %v: %v", slow, err)
				}
				if got := err == nil; got != tc.valid {
					t.Errorf("slow %v: valid = %v, want %v (%v)", slow, got, tc.valid, err)
				}
				if asked := d.slow > 0; !slow && asked != tc.slow {
					t.Errorf("the schema validator asked: %v, want %v", asked, tc.slow)
				}
			}
		})
	}
}

// A member name must be followed by a colon; the error says what came.
func TestDecodeMemberColon(t *testing.T) {
	var d Decoder
	for _, tc := range []struct{ in, msg string }{
		{`{"a" 1}`, `expected ':', found '1'`},
		{`{"a";1}`, `expected ':', found ';'`},
		{`{"a"`, `unexpected end of input, expected ':'`},
		{`{"a"   `, `unexpected end of input, expected ':'`},
		{`{"a":{"b" "c"}}`, `expected ':', found '"'`},
	} {
		ev, err := d.Decode([]byte(tc.in))
		var se *SyntaxError
		if ev != nil || !errors.As(err, &se) || se.Msg != tc.msg {
			t.Errorf("Decode(%q) = %v, %v; want nil and a SyntaxError %q", tc.in, ev, err, tc.msg)
		}
	}
}

// TestDecoderRemembersOnlyWhatPassed: a Decoder skips checking a member
// whose value it found valid under the same rule in an earlier event, and
// only that one: a different value of the member, or an invalid one, is
// checked each time.
func TestDecoderRemembersOnlyWhatPassed(t *testing.T) {
	const producer = `"producer":{"agent_id":"research-assistant","agent_name":"Research Assistant","agent_version":"2.3.1"}`
	invalidProducer := strings.Replace(typical, producer, `"producer":{"agent_name":"Research Assistant"}`, 1)
	d := Decoder{Schemas: schemas(t)}
	for i, tc := range []struct {
		in    string
		valid bool
	}{
		{typical, true},
		{typical, true},
		{invalidProducer, false},
		{invalidProducer, false},
		{typical, true},
		{strings.Replace(typical, `"risk_level":"low"`, `"risk_level":"lowest"`, 1), false},
		{strings.Replace(typical, `"urgency":"normal"`, `"urgency":"normal "`, 1), false},
		{strings.Replace(typical, `"sequence_number":3`, `"sequence_number":"3"`, 1), false},
		{typical, true},
	} {
		_, err := d.Decode([]byte(tc.in))
		if (err == nil) != tc.valid {
			t.Errorf("event %d: Decode = %v, want valid %v", i, err, tc.valid)
		}
	}
}

// A member whose value changes with every event rests its verdict (it is
// neither compared nor copied), is checked all the same, and has it again
// once its value repeats (within two rests).
func TestVerdictRests(t *testing.T) {
	d := Decoder{Schemas: schemas(t), noTemplates: true} // the verdicts, not a template
	decode := func(in string, valid bool) {
		t.Helper()
		if _, err := d.Decode([]byte(in)); (err == nil) != valid {
			t.Fatalf("Decode = %v, want valid %v", err, valid)
		}
	}
	id := func(i int) string {
		return strings.Replace(typical, `"evt_00000000000000a1"`, fmt.Sprintf(`"evt_%016x"`, i), 1)
	}
	// The first new ID is kept, the next nOlder fill the older values,
	// and missMax more miss.
	for i := range 1 + nOlder + missMax {
		if i == nOlder+missMax && d.verdicts[fEventID].rest != 0 {
			t.Fatalf("after %d new event IDs the verdict rests", i)
		}
		decode(id(i), true)
	}
	if d.verdicts[fEventID].rest == 0 {
		t.Fatalf("after %d new event IDs the verdict does not rest", 1+nOlder+missMax)
	}
	decode(strings.Replace(typical, `"evt_00000000000000a1"`, `"evt_-1"`, 1), false)
	// The first look after the rest compares with the last new ID, and
	// misses; the next finds the repeated one.
	for i := range 2*restFor + 3 {
		decode(typical, true) // the same ID again and again
		if i == 2*restFor+2 && (d.verdicts[fEventID].rest != 0 || d.verdicts[fEventID].misses != 0) {
			t.Errorf("a repeated ID: verdict rests %d, %d misses", d.verdicts[fEventID].rest, d.verdicts[fEventID].misses)
		}
	}
}

// An extension's data need only be an object: checking it does not read
// its members again (a capture's padded note, hundreds of bytes, was
// scanned twice), and what is not an object is still refused.
func TestExtensionDataReadOnce(t *testing.T) {
	const data = `{"note":"a long note, read once"}`
	in := strings.Replace(typical, `"urgency":"normal"`, `"urgency":"normal","extensions":{"x_bench":`+data+`}`, 1)
	d := Decoder{Schemas: schemas(t)}
	if _, err := d.Decode([]byte(in)); err != nil {
		t.Fatal(err)
	}
	at := int32(strings.Index(in, data))
	for _, o := range d.memo.objs {
		if o.start == at {
			t.Error("the extension's data was scanned again to check it")
		}
	}
	bad := strings.Replace(in, data, `"a note"`, 1)
	if _, err := d.Decode([]byte(bad)); asValidation(err) == nil {
		t.Errorf("an extension's data that is no object: %v", err)
	}
}

// Timestamps in the same second are read for their fraction alone, and
// come out as time.Parse reads them, whatever came before.
func TestTimestampsOfOneSecond(t *testing.T) {
	d := Decoder{Schemas: schemas(t)}
	for _, ts := range []string{
		"2026-06-30T14:22:11.342Z", "2026-06-30T14:22:11.5Z", "2026-06-30T14:22:11Z",
		"2026-06-30T14:22:11.123456789123Z", "2026-06-30T14:22:11.342+02:00",
		"2026-06-30T14:22:11.343+02:00", "2026-06-30T14:22:11.343-02:00", "2026-06-30T14:22:11.9Z",
		"2026-06-30T14:22:12.001Z", "2026-06-30T14:22:11.Z", "2026-06-30T14:22:11.1Zx", "2026-06-30T14:22:11.2Z",
	} {
		in := strings.Replace(typical, "2026-06-30T14:22:11.342Z", ts, 1)
		ev, err := d.Decode([]byte(in))
		want, perr := time.Parse(time.RFC3339Nano, ts)
		if perr != nil {
			if asValidation(err) == nil {
				t.Errorf("%s: Decode = %v, want a validation error", ts, err)
			}
			continue
		}
		if err != nil || !ev.Timestamp.Equal(want) {
			t.Errorf("%s: Decode = %v, %v; want %v", ts, ev.Timestamp, err, want)
		}
	}
}

// ext is the data of e's extension name, or nil.
func ext(e *Event, name string) []byte {
	d, _ := e.Extension(name)
	return d
}

// A decoder compares each member's name with the one that followed the
// member before it in the last event (follows) before it scans it: events
// whose members come in another order, with white space, escaped names,
// unknown members or cut short decode as a fresh decoder decodes them.
func TestLayoutPredictsNames(t *testing.T) {
	s := schemas(t)
	warm := Decoder{Schemas: s}
	for i, in := range []string{
		typical,
		typical,
		strings.Replace(typical, `"aaep_version":"1.0.0","type":"aaep:agent.tool.invoked"`, `"type":"aaep:agent.tool.invoked","aaep_version":"1.0.0"`, 1),
		strings.Replace(typical, `"event_id":`, `"event_id" :`, 1),
		strings.Replace(typical, `"event_id":`, `"event\u005fid":`, 1),
		strings.Replace(typical, `"urgency":"normal",`, `"urgency":"normal","colour":"red",`, 1),
		strings.Replace(typical, `"urgency":"normal",`, `"urgencyx":"normal",`, 1),
		strings.Replace(typical, `"urgency":"normal",`, `"urgenc":"normal",`, 1),
		typical[:len(typical)-40],
		`{"@context":"x","type":`,
		`{"type":"aaep:agent.tool.invoked"}`,
		typical,
	} {
		fresh := Decoder{Schemas: s}
		ef, errF := fresh.Decode([]byte(in))
		ew, errW := warm.Decode([]byte(in))
		if fmt.Sprint(errW) != fmt.Sprint(errF) || !reflect.DeepEqual(ew, ef) {
			t.Errorf("event %d: a decoder used before: %v; a fresh one: %v", i, errW, errF)
		}
	}
	if f := warm.follows; f[nField] != fAtContext || f[fAtContext] != fAaepVersion || f[fSummaryTerse] != fSummaryNormal {
		t.Errorf("what follows what after the typical event: %v", f)
	}
}

// A value whose bytes are its verdict's is not scanned again: its span,
// the longest string and the nesting in it, and an object's members come
// from the verdict. Whatever surrounds it, and whatever the limits, the
// event decodes as a fresh decoder decodes it.
func TestSameValuesNotScanned(t *testing.T) {
	s := schemas(t)
	nested := strings.Replace(typical, `"urgency":"normal",`, `"urgency":"normal","extensions":{"x_a":{"b":{"c":{"d":"`+strings.Repeat("é", 40)+`"}}}},`, 1)
	escaped := strings.Replace(typical, `"Fetching."`, `"Fetch\u0069ng \"it\"."`, 1)
	warm := Decoder{Schemas: s, noTemplates: true} // the verdicts, not a template
	for i, tc := range []struct {
		in  string
		lim Limits
	}{
		{typical, Limits{}},
		{typical, Limits{}},
		{strings.Replace(typical, `"agent_version":"2.3.1"}`, `"agent_version":"2.3.1"}x`, 1), Limits{}},
		{strings.Replace(typical, `"agent_version":"2.3.1"}`, `"agent_version":"2.3.1"} `, 1), Limits{}},
		{strings.Replace(typical, `"urgency":"normal"`, `"urgency":"normal"x`, 1), Limits{}},
		{strings.Replace(typical, `"urgency":"normal"`, `"urgency": "normal"`, 1), Limits{}},
		{typical[:strings.Index(typical, `"normal"`)+5], Limits{}},
		{nested, Limits{}},
		{nested, Limits{}},
		{nested, Limits{MaxDepth: 4}},
		{nested, Limits{MaxString: 60}},
		{nested, Limits{HardMaxDepth: 4}},
		{nested, Limits{}},
		{escaped, Limits{}},
		{escaped, Limits{}},
		{strings.Replace(typical, `"producer":{`, `"producer":{"agent_id":"research-assistant",`, 1), Limits{}},
		{typical, Limits{}},
	} {
		fresh := Decoder{Schemas: s, Limits: tc.lim}
		warm.Limits = tc.lim
		ef, errF := fresh.Decode([]byte(tc.in))
		ew, errW := warm.Decode([]byte(tc.in))
		if fmt.Sprint(errW) != fmt.Sprint(errF) || !reflect.DeepEqual(ew, ef) {
			t.Errorf("event %d: a decoder used before: %v; a fresh one: %v", i, errW, errF)
		}
		if i == 1 || i == 8 || i == 14 {
			for _, f := range []field{fAtContext, fProducer, fLocalizationHints, fSummaryTerse} {
				if warm.same[f] != sameYes {
					t.Errorf("event %d: %s was scanned again", i, fieldNames[f])
				}
			}
		}
	}
}

// TestOlderValuesRecalled decodes a stream whose members rotate a few
// values (sessions interleaved, event types in turn): a value one of a
// member's older verdicts passed is compared, not scanned, and the warm
// decoder still decodes every event as a fresh one does, when the value
// is followed by garbage, cut short, or recalled under a rule that
// rejects it (urgency "normal" on an error, whose urgency must be
// critical; "normal" passed the envelope's rule before).
func TestOlderValuesRecalled(t *testing.T) {
	s := schemas(t)
	errored := `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.session.errored","event_id":"evt_2","session_id":"sess_1","timestamp":"2026-06-30T14:22:12Z","producer":{"agent_id":"a"},"urgency":"critical","error_category":"tool","recoverable":true,"summary_normal":"It broke."}`
	session := func(ev string, n int) string {
		return strings.Replace(ev, `"sess_000000000007"`, fmt.Sprintf(`"sess_%d"`, n), 1)
	}
	var stream []string
	for i := range 12 {
		stream = append(stream, session(typical, i%4))
	}
	stream = append(stream,
		errored,
		strings.Replace(session(typical, 1), `"normal"`, `"low"`, 1),
		session(typical, 2),
		strings.Replace(errored, `"critical"`, `"normal"`, 1), // recalled, then rejected
		strings.Replace(errored, `"critical"`, `"low"`, 1),
		strings.Replace(session(typical, 2), `"sess_2"`, `"sess_2"x`, 1),
		strings.Replace(session(typical, 3), `"sess_3"`, `"sess_3`, 1)[:strings.Index(typical, `"session_id"`)+20],
		strings.Replace(session(typical, 0), `"sess_0"`, `"sess_0" `, 1),
		session(typical, 1),
	)
	warm := Decoder{Schemas: s, noTemplates: true} // the verdicts, not a template
	for i, in := range stream {
		fresh := Decoder{Schemas: s}
		ef, errF := fresh.Decode([]byte(in))
		ew, errW := warm.Decode([]byte(in))
		if fmt.Sprint(errW) != fmt.Sprint(errF) || !reflect.DeepEqual(ew, ef) {
			t.Errorf("event %d: a decoder used before: %v; a fresh one: %v", i, errW, errF)
		}
		if i >= 4 && i < 12 && warm.same[fSessionID] != sameYes {
			t.Errorf("event %d: the session ID of an earlier event was scanned again", i)
		}
	}
	if errW := fmt.Sprint(warm.Decode([]byte(strings.Replace(errored, `"critical"`, `"normal"`, 1)))); !strings.Contains(errW, "urgency") && !strings.Contains(errW, "critical") {
		t.Errorf("urgency normal on an error: %s", errW)
	}
}

// Members that several types define alike share one rule, so that a
// value that passed one type's passes another's without a check (the
// summaries, the tool of invoked and completed); a type that narrows an
// envelope member (an error's critical urgency) keeps its own, and so do
// members defined otherwise. A summary that passed in one type is then
// not checked again in another.
func TestAlikeRulesShared(t *testing.T) {
	s := schemas(t)
	rules := func(typ string) *eventRules { return s.judgeOf(typ).fast }
	invoked, completed, progress, errored, started := rules("aaep:agent.tool.invoked"), rules("aaep:agent.tool.completed"), rules("aaep:agent.progress.updated"), rules("aaep:agent.session.errored"), rules("aaep:agent.session.started")
	for _, tc := range []struct {
		name string
		a, b *rule
		same bool
	}{
		{"summary_normal", invoked.fields[fSummaryNormal], progress.fields[fSummaryNormal], true},
		{"summary_terse", invoked.fields[fSummaryTerse], errored.fields[fSummaryTerse], true},
		{"tool", invoked.fields[fTool], completed.fields[fTool], true},
		{"tool_call_id", invoked.fields[fToolCallID], completed.fields[fToolCallID], true},
		{"expected_duration_ms", invoked.fields[fExpectedDurationMS], started.fields[fExpectedDurationMS], true},
		{"urgency", errored.fields[fUrgency], invoked.fields[fUrgency], false},
		{"type", invoked.fields[fType], completed.fields[fType], false},
		{"summary_normal and summary_terse", invoked.fields[fSummaryNormal], invoked.fields[fSummaryTerse], false},
	} {
		if tc.a == nil || tc.b == nil || (tc.a == tc.b) != tc.same {
			t.Errorf("%s: one rule %v, want %v", tc.name, tc.a == tc.b, tc.same)
		}
	}
	d := Decoder{Schemas: s}
	invokedEv := capturetest.ToolEvent(16) // the tool invoked: "Fetching the report."
	progressEv := bytes.Replace(capturetest.ToolEvent(20), []byte("Half of the figures are in."), []byte("Fetching the report."), 1)
	for _, in := range [][]byte{invokedEv, progressEv} {
		if _, err := d.Decode(in); err != nil {
			t.Fatal(err)
		}
	}
	if d.same[fSummaryNormal] != sameYes || d.older[fSummaryNormal] != nil {
		t.Errorf("a summary that passed in one type was checked again in another")
	}
}

// The next member's name is compared with the comma before it where a
// value ends, four words inlined away from the event's end and fewer near
// it. Spaced, cut short, misspelt or missing, the names decode as a fresh
// decoder decodes them, and a predicted name counts as a string of its
// length against the string limit (sequence_number, 15 bytes, is the
// longest string here).
func TestNextNameWithComma(t *testing.T) {
	s := schemas(t)
	const ev = `{"type":"t","sequence_number":1,"urgency":"low","session_id":"s"}`
	for _, lim := range []Limits{{}, {MaxString: 15}, {MaxString: 14}} {
		warm := Decoder{Schemas: s, Limits: lim}
		for i, in := range []string{
			ev,
			ev,
			strings.Replace(ev, `,"urgency"`, `, "urgency"`, 1),
			strings.Replace(ev, `1,"urgency"`, `1 ,"urgency"`, 1),
			strings.Replace(ev, `"low",`, `"low",,`, 1),
			strings.Replace(ev, `"urgency"`, `"urgencyx"`, 1),
			strings.Replace(ev, `"urgency":`, `"urgency" :`, 1),
			ev[:len(ev)-1],
			ev[:strings.Index(ev, `"session_id"`)+len(`"session_id"`)],
			ev[:strings.Index(ev, `"session_id"`)+len(`"session_id":`)] + `}`,
			ev[:strings.Index(ev, `,"session_id"`)] + `,}`,
			strings.Replace(ev, `"s"}`, `"s","urgency":"low"}`, 1),
			ev,
			typical,
			ev,
		} {
			fresh := Decoder{Schemas: s, Limits: lim}
			ef, errF := fresh.Decode([]byte(in))
			ew, errW := warm.Decode([]byte(in))
			if fmt.Sprint(errW) != fmt.Sprint(errF) || !reflect.DeepEqual(ew, ef) {
				t.Errorf("%+v, event %d: a decoder used before: %v; a fresh one: %v", lim, i, errW, errF)
			}
		}
	}
}

// A value of up to 16 bytes with its quotes is compared with its verdict
// in two words under a mask: a value that differs in its first, eighth,
// ninth or last byte, or is longer or shorter, is scanned, and one near
// the event's end (fewer than 16 bytes left) is compared byte by byte.
func TestShortValuesCompared(t *testing.T) {
	s := schemas(t)
	ev := strings.Replace(strings.Replace(typical, `"sess_000000000007"`, `"sess_0123456789"`, 1), `"urgency":"normal",`, ``, 1)
	ev = ev[:len(ev)-1] + `,"urgency":"normal"}`   // in its last 16 bytes
	warm := Decoder{Schemas: s, noTemplates: true} // the verdicts, not a template
	for i, tc := range []struct {
		in   string
		same bool // the session ID and urgency are their verdicts'
	}{
		{ev, false},
		{ev, true},
		{strings.Replace(ev, `"sess_0123456789"`, `"Sess_0123456789"`, 1), false},
		{ev, true}, // an older value again
		{strings.Replace(ev, `"sess_0123456789"`, `"sess_01X3456789"`, 1), false},
		{ev, true},
		{strings.Replace(ev, `"sess_0123456789"`, `"sess_012X456789"`, 1), false},
		{ev, true},
		{strings.Replace(ev, `"sess_0123456789"`, `"sess_012345678X"`, 1), false},
		{ev, true},
		{strings.Replace(ev, `"sess_0123456789"`, `"sess_012345678"`, 1), false},
		{ev, true},
		{strings.Replace(ev, `"sess_0123456789"`, `"sess_01234567890"`, 1), false},
		{ev, true},
		{strings.Replace(ev, `"normal"}`, `"normax"}`, 1), false},
		{strings.Replace(ev, `"normal"}`, `"normal"x`, 1), true}, // the same bytes, then garbage
		{ev, true},
	} {
		fresh := Decoder{Schemas: s}
		ef, errF := fresh.Decode([]byte(tc.in))
		ew, errW := warm.Decode([]byte(tc.in))
		if fmt.Sprint(errW) != fmt.Sprint(errF) || !reflect.DeepEqual(ew, ef) {
			t.Errorf("event %d: a decoder used before: %v; a fresh one: %v", i, errW, errF)
		}
		if got := warm.same[fSessionID] == sameYes && warm.same[fUrgency] == sameYes; got != tc.same {
			t.Errorf("event %d: compared with the verdicts %v (%d, %d), want %v", i, got, warm.same[fSessionID], warm.same[fUrgency], tc.same)
		}
	}
}

// The type keeps a verdict as other members do: the same bytes are the
// same type, whose rules they choose again, so a repeated type is compared
// and not scanned, in its compact or full form, and decodes as a fresh
// decoder decodes it, whatever the rest of the event.
func TestTypeVerdict(t *testing.T) {
	s := schemas(t)
	full := strings.Replace(typical, `"aaep:agent.tool.invoked"`, `"https://aaep-protocol.org/types/agent.tool.invoked"`, 1)
	warm := Decoder{Schemas: s, noTemplates: true} // the verdicts, not a template
	for i, tc := range []struct {
		in   string
		same bool // the type is its verdict's
	}{
		{typical, false},
		{typical, true},
		{full, false},
		{full, true},
		{typical, true},
		{strings.Replace(typical, `"tool":"fetch_report",`, ``, 1), true}, // a required member missing
		{strings.Replace(typical, `"aaep:agent.tool.invoked"`, `"aaep:agent.tool.invoked "`, 1), false},
		{strings.Replace(typical, `"aaep:agent.tool.invoked"`, `"aaep:agent.tool.invokeD"`, 1), false},
		{strings.Replace(typical, `"aaep:agent.tool.invoked"`, `"x_vendor.custom"`, 1), false},
		{strings.Replace(typical, `"aaep:agent.tool.invoked"`, `"x_vendor.custom"`, 1), true},
		{typical, true},
	} {
		fresh := Decoder{Schemas: s}
		ef, errF := fresh.Decode([]byte(tc.in))
		ew, errW := warm.Decode([]byte(tc.in))
		if fmt.Sprint(errW) != fmt.Sprint(errF) || !reflect.DeepEqual(ew, ef) {
			t.Errorf("event %d: a decoder used before: %v; a fresh one: %v", i, errW, errF)
		}
		if got := warm.same[fType] == sameYes; got != tc.same {
			t.Errorf("event %d: the type compared with its verdicts %v, want %v", i, got, tc.same)
		}
	}
}

// strVal, inlined where the event is filled, is str's string for every
// kind: a plain string, one with escapes, and "" for other kinds.
func TestStrVal(t *testing.T) {
	b := []byte(`["plain","esc\u0061ped\n",12,{"a":"b"},null,"é"]`)
	x := decodeState{b: b, src: string(b)}
	n := 0
	x.items(span{start: 0, end: int32(len(b)), kind: kArray}, func(sp span) {
		n++
		want, _ := x.str(sp)
		if got := x.strVal(sp); got != want {
			t.Errorf("item %d: strVal %q, str %q", n, got, want)
		}
	})
	if n != 6 {
		t.Errorf("%d items read", n)
	}
	if got := x.strVal(span{start: 2, end: 7, kind: kString, esc: true}); got != "plain" {
		t.Errorf("an escaped span: %q", got)
	}
}

// Each soft limit exceeded is reported, by a decoder whose limits change
// from event to event as by a fresh one, and none is reported at the
// limit itself.
func TestSoftLimitsReported(t *testing.T) {
	s := schemas(t)
	warm := Decoder{Schemas: s}
	in := []byte(typical)
	for i, tc := range []struct {
		lim  Limits
		want string
	}{
		{Limits{}, ""},
		{Limits{MaxBytes: len(typical) - 1}, "bytes"},
		{Limits{MaxBytes: len(typical)}, ""},
		{Limits{MaxFields: 10}, "has 17 top-level members"},
		{Limits{MaxDepth: 1}, "nested"},
		{Limits{MaxString: 10}, "a string of"},
		{Limits{}, ""},
	} {
		warm.Limits = tc.lim
		fresh := Decoder{Schemas: s, Limits: tc.lim}
		_, errW := warm.Decode(in)
		_, errF := fresh.Decode(in)
		if i == 3 {
			// A member no type defines and a repeated one count too.
			more := strings.Replace(typical, `"urgency":"normal",`, `"urgency":"normal","colour":"red","urgency":"normal",`, 1)
			if _, err := warm.Decode([]byte(more)); !strings.Contains(fmt.Sprint(err), "has 19 top-level members") {
				t.Errorf("a stranger and a repeated member: %v", err)
			}
		}
		if fmt.Sprint(errW) != fmt.Sprint(errF) {
			t.Errorf("case %d: a decoder used before: %v; a fresh one: %v", i, errW, errF)
		}
		if got := fmt.Sprint(errW); tc.want == "" && errW != nil || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("case %d: %v, want %q", i, errW, tc.want)
		}
	}
}

// The spans of the members of the last event stay in the decoder (only
// those of members met are read): a member the event lacks is missing,
// whatever the last event had (a required one; the irreversible flag,
// risk and default of a confirmation's rule).
func TestStaleSpansNotRead(t *testing.T) {
	s := schemas(t)
	const conf = `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.awaiting.confirmation","event_id":"evt_3","session_id":"sess_1","timestamp":"2026-06-30T14:22:13Z","producer":{"agent_id":"a"},"urgency":"critical","action":"Delete the file.","consequence":"It is gone.","risk_level":"high","irreversible":true,"default_decision":"reject","timeout_seconds":30,"reply_token":"rpl_1","allowed_replies":["accept","reject"]}`
	accept := strings.Replace(conf, `"default_decision":"reject"`, `"default_decision":"accept"`, 1)
	warm := Decoder{Schemas: s}
	for i, tc := range []struct {
		in    string
		valid bool
	}{
		{conf, true},
		{accept, false},
		{strings.Replace(accept, `"irreversible":true,`, ``, 1), true},
		{accept, false},
		// where the last event's irreversible true was, a t
		{strings.Replace(strings.Replace(accept, `"irreversible":true,`, ``, 1), `"It is gone."`, `"It is gone`+strings.Repeat("t", 40)+`"`, 1), true},
		{accept, false},
		{strings.Replace(accept, `"risk_level":"high",`, ``, 1), true},
		{typical, true},
		{strings.Replace(typical, `"tool":"fetch_report",`, ``, 1), false},
		{strings.Replace(typical, `"event_id":"evt_00000000000000a1",`, ``, 1), false},
		{typical, true},
	} {
		fresh := Decoder{Schemas: s}
		slow := warm.slow
		ef, errF := fresh.Decode([]byte(tc.in))
		ew, errW := warm.Decode([]byte(tc.in))
		if fmt.Sprint(errW) != fmt.Sprint(errF) || !reflect.DeepEqual(ew, ef) {
			t.Errorf("event %d: a decoder used before: %v; a fresh one: %v", i, errW, errF)
		}
		if (errW == nil) != tc.valid {
			t.Errorf("event %d: %v, want valid %v", i, errW, tc.valid)
		}
		if warm.slow-slow != fresh.slow {
			t.Errorf("event %d: the schema validator judged it for a decoder used before, not for a fresh one", i)
		}
	}
}

// The decoder keeps the judge of the type it judged last: the same type
// again is judged as the Schemas judge it, other types, a type too long
// to keep, a handshake's type (not kept) and a type judged by other
// Schemas than the last are looked up again.
func TestJudgeOfRemembered(t *testing.T) {
	s := schemas(t)
	other, err := NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	long := "x_vendor." + strings.Repeat("long", 20)
	d := Decoder{Schemas: s}
	for i, tc := range []struct {
		typ string
		by  *Schemas
	}{
		{"aaep:agent.tool.invoked", s},
		{"aaep:agent.tool.invoked", s},
		{"aaep:agent.tool.completed", s},
		{"aaep:agent.tool.invoked", other},
		{"aaep:agent.tool.invoked", other},
		{"aaep:agent.tool.invoked", s},
		{long, s},
		{long, s},
		{"aaep:subscription.request", s},
		{"aaep:subscription.request", s},
		{"x_vendor.custom", s},
		{"x_vendor.custom", s},
		{"aaep:agent.tool.invoked", s},
	} {
		d.Schemas = tc.by
		if got, want := d.judgeOf(tc.typ), tc.by.judgeOf(tc.typ); got != want {
			t.Errorf("case %d, %s: judged %+v, want %+v", i, tc.typ, got, want)
		}
	}
}
