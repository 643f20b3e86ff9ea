package capture

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/spectest"
	"github.com/aaep-term/aaep-term/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// checkFile runs the full check over a file and returns every problem.
func checkFile(t *testing.T, path string, o CheckOptions) ([]Violation, []Diagnostic) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := NewChecker(o)
	if err != nil {
		t.Fatal(err)
	}
	var out []Violation
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c.Check(rec).Violations...)
	}
	out = append(out, c.Finish()...)
	diags, _ := r.Diagnostics()
	return out, diags
}

// Each capture of the corpus shows exactly its violations, at the right line.
func TestCorpus(t *testing.T) {
	for _, tt := range []struct {
		file string
		want []string // "line rule severity"
	}{
		{"clean.aaep", nil},
		{"clean.jsonl", nil},
		{"clean.jsonl.gz", nil},
		{"truncated.aaep", []string{"16 bracketing warning"}},
		{"bracketing.aaep", []string{"4 bracketing violation", "5 bracketing violation"}},
		{"no-start.aaep", []string{"2 bracketing violation"}},
		{"tool-pairing.aaep", []string{"3 tool-pairing violation", "5 tool-pairing violation"}},
		{"unconfirmed.aaep", []string{"4 unconfirmed-irreversible violation"}},
		{"after-reject.aaep", []string{"5 confirmation violation"}},
		{"no-follow-up.aaep", []string{"5 follow-up violation"}},
		{"accept-no-action.aaep", []string{"6 follow-up violation"}},
		{"output.aaep", []string{"5 output-completion violation", "7 output-position violation", "8 output-completion violation"}},
		{"timestamps.aaep", []string{"4 timestamp-order violation"}},
		{"sequence.aaep", []string{"3 sequence-number violation", "4 sequence-number violation", "4 timestamp-order violation", "5 sequence-number violation"}},
		{"duplicate.aaep", []string{"4 duplicate violation"}},
		{"default-decision.aaep", []string{"3 default-decision violation"}},
		{"urgency.aaep", []string{"3 critical-urgency violation"}},
		{"schema.aaep", []string{"3 schema violation"}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			vs, _ := checkFile(t, filepath.Join("testdata", "corpus", tt.file), CheckOptions{})
			var got []string
			for _, v := range vs {
				got = append(got, fmt.Sprintf("%d %s %s", v.Line, v.Rule, v.Severity))
				if v.Message == "" || v.Section == "" || strings.ContainsRune(v.Message, '\n') {
					t.Errorf("violation without a one-line message and section: %+v", v)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s\nall:\n%v", strings.Join(got, "\n"), strings.Join(tt.want, "\n"), vs)
			}
		})
	}
}

// A truncated last line is recovered with a diagnostic that says so.
func TestTruncatedDiagnostic(t *testing.T) {
	_, diags := checkFile(t, filepath.Join("testdata", "corpus", "truncated.aaep"), CheckOptions{})
	if len(diags) != 1 || !diags[0].Truncated || diags[0].Line != 21 {
		t.Fatalf("diagnostics %+v, want one for the truncated line 21", diags)
	}
}

// Every official valid fixture passes the schema-only check; every invalid
// one fails it, except duplicate-completion-streaming, whose fault shows only
// next to the first completion it repeats (the sequencing check finds that
// in a capture: see output.aaep).
func TestOfficialFixtures(t *testing.T) {
	dir := spectest.Dir(t)
	for _, kind := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(dir, "fixtures", kind, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no %s fixtures", kind)
		}
		for _, f := range files {
			t.Run(kind+"/"+filepath.Base(f), func(t *testing.T) {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				recs, diags, err := ReadDocuments(bytes.NewReader(b))
				if err != nil || len(recs) != 1 || len(diags) != 0 {
					t.Fatalf("read %d records, diagnostics %v, error %v", len(recs), diags, err)
				}
				c, err := NewChecker(CheckOptions{SchemaOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				vs := c.Check(recs[0]).Violations
				wantValid := kind == "valid" || strings.Contains(f, "duplicate-completion")
				if wantValid && len(vs) > 0 {
					t.Errorf("valid fixture rejected: %v", vs)
				}
				if !wantValid && len(vs) == 0 {
					t.Error("invalid fixture accepted")
				}
			})
		}
	}
}

// The shapes other tools use read as the same messages: a pretty-printed
// object, concatenated objects, an array over lines or on one line.
func TestDocumentShapes(t *testing.T) {
	obj := `{"type":"subscription.close","subscription_id":"sub_abc12345"}`
	for _, tt := range []struct {
		name, in string
		lines    []int
	}{
		{"single line", obj + "\n", []int{1}},
		{"pretty", "\n{\n  \"type\": \"subscription.close\",\n  \"subscription_id\": \"sub_abc12345\"\n}\n", []int{2}},
		{"two pretty", "{\n\"a\":1\n}\n{\n\"b\":2\n}", []int{1, 4}},
		{"array", "[\n  " + obj + ",\n  " + obj + "\n]\n", []int{2, 3}},
		{"array one line", "[" + obj + "," + obj + "]", []int{1, 1}},
		{"jsonl", obj + "\n\n" + obj + "\n", []int{1, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs, diags, err := ReadDocuments(strings.NewReader(tt.in))
			if err != nil || len(diags) > 0 {
				t.Fatalf("error %v, diagnostics %v", err, diags)
			}
			var lines []int
			for _, r := range recs {
				lines = append(lines, r.Line)
				if bytes.ContainsRune(r.Msg, '\n') {
					t.Errorf("record holds a newline: %s", r.Msg)
				}
			}
			if fmt.Sprint(lines) != fmt.Sprint(tt.lines) {
				t.Errorf("lines %v, want %v", lines, tt.lines)
			}
		})
	}
}

// The text trace of the corpus matches the golden files.
func TestTraceGolden(t *testing.T) {
	for _, name := range []string{"clean.aaep", "after-reject.aaep", "output.aaep", "clean.jsonl"} {
		t.Run(name, func(t *testing.T) {
			r, err := Open(filepath.Join("testdata", "corpus", name))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			tr, err := BuildTrace(r, name, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := tr.WriteText(&got); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "golden", name+".trace.txt"), got.Bytes())
			var html bytes.Buffer
			if err := tr.WriteHTML(&html); err != nil {
				t.Fatal(err)
			}
			checkHTML(t, html.String(), tr)
		})
	}
}

// checkHTML checks the report is self-contained and accessible in structure.
func checkHTML(t *testing.T, h string, tr *Trace) {
	t.Helper()
	for _, want := range []string{`<html lang="en">`, "<title>", "<main>", "<h1>", "<caption>", `<th scope="col">`} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML report lacks %s", want)
		}
	}
	for _, bad := range []string{"<script", "src=", "href=", "@import", "url("} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML report is not self-contained: has %s", bad)
		}
	}
	if got := strings.Count(h, "<strong>VIOLATION</strong>"); got != tr.Violations {
		t.Errorf("HTML states %d violations in words, the trace has %d", got, tr.Violations)
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", path, got)
	}
}

// However many sessions stay open, the checker follows a bounded number and
// says how many it forgot.
func TestOpenSessionsBounded(t *testing.T) {
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := maxOpenSessions + 10
	for i := 0; i < n; i++ {
		ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.session.started","event_id":"evt_%x","session_id":"sess_%x","timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"},"summary_normal":"Hi."}`, i, i)
		c.Check(Record{Line: i + 1, Dir: In, Msg: []byte(ev)})
	}
	if len(c.sessions) > maxOpenSessions {
		t.Errorf("%d sessions followed", len(c.sessions))
	}
	vs := c.Finish()
	if last := vs[len(vs)-1]; last.Rule != "open-sessions" || !strings.Contains(last.Message, "10 sessions") {
		t.Errorf("last of %d final problems: %+v", len(vs), last)
	}
}

// A sent reply without subscription_id is no violation in a capture without
// a handshake (the deployed layout; one warning says so), and a violation
// after a subscription.accepted gave one.
func TestReplySubscription(t *testing.T) {
	const reply = `{"type":"confirmation.reply","reply_token":"rpl_1","decision":"reject","timestamp":"2026-06-30T14:22:11.342Z"}`
	const accepted = `{"type":"subscription.accepted","subscription_id":"sub_1","aaep_version":"1.0.0","producer":{"agent_id":"a"},"honored_capabilities":{}}`
	for _, tt := range []struct {
		name                 string
		recs                 []Record
		violations, warnings int
	}{
		{"no handshake", []Record{{Dir: Out, Msg: []byte(reply)}, {Dir: Out, Msg: []byte(reply)}}, 0, 1},
		{"after a handshake", []Record{{Dir: In, Msg: []byte(accepted)}, {Dir: Out, Msg: []byte(reply)}}, 1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewChecker(CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			violations, warnings := 0, 0
			for i, rec := range tt.recs {
				rec.Line = i + 2
				for _, v := range c.Check(rec).Violations {
					t.Log(v)
					if v.Severity == SeverityViolation {
						violations++
					} else {
						warnings++
					}
				}
			}
			if violations != tt.violations || warnings != tt.warnings {
				t.Errorf("%d violations, %d warnings; want %d, %d", violations, warnings, tt.violations, tt.warnings)
			}
		})
	}
}

// Every violation's session and event ID are sanitized, whichever rule
// made it: the warning of a second reply named the session as the
// producer sent it, escape sequences and all.
func TestViolationIDsSanitized(t *testing.T) {
	const ask = `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.awaiting.confirmation","event_id":"evt_1\u001b[2J","session_id":"sess_1\u001b[2J","sequence_number":0,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"},"urgency":"critical","reply_token":"rpl_1","action":"Pay.","risk_level":"low","irreversible":false,"default_decision":"reject","timeout_seconds":60}`
	const reply = `{"type":"confirmation.reply","reply_token":"rpl_1","decision":"reject","timestamp":"2026-06-30T14:22:11.342Z"}`
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var all []Violation
	for i, rec := range []Record{{Dir: In, Msg: []byte(ask)}, {Dir: Out, Msg: []byte(reply)}, {Dir: Out, Msg: []byte(reply)}} {
		rec.Line = i + 2
		all = append(all, c.Check(rec).Violations...)
	}
	rules := map[string]bool{}
	for _, v := range all {
		rules[v.Rule] = true
		if strings.ContainsRune(v.Session+v.EventID, '\x1b') {
			t.Errorf("%s: session %q, event %q", v.Rule, v.Session, v.EventID)
		}
	}
	if !rules["reply-once"] || !rules["schema"] {
		t.Errorf("rules %v, want reply-once and schema among them", rules)
	}
}

// The checker's keys hold each part after its length: an agent ID that
// holds a 0 (JSON allows it) and the start of an event or session ID
// cannot make another agent's key, nor a connection another's token.
func TestKeysAreNotAmbiguous(t *testing.T) {
	const ev = `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.progress.updated","event_id":"%s","session_id":"sess_1","timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"%s"},"urgency":"normal","progress":{"step":1}}`
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range [][2]string{{"c", `a\u0000b`}, {`b\u0000c`, "a"}} {
		r := c.Check(Record{Line: i + 1, Dir: In, Msg: fmt.Appendf(nil, ev, p[0], p[1])})
		for _, v := range r.Violations {
			if v.Rule == "duplicate" {
				t.Errorf("line %d: %s", i+1, v.Message)
			}
		}
	}
	if tokenKey("a\x00b", "c") == tokenKey("a", "b\x00c") {
		t.Error("two connections' tokens share a key")
	}
}

// A gap in sequence numbers is a loss, unless the subscription's honoured
// terms let the producer leave events out of its stream: then it is said
// as a warning that names those terms.
func TestSequenceGapUnderWithholdingTerms(t *testing.T) {
	ev := func(typ string, seq int, extra string) Record {
		return Record{Dir: In, Msg: []byte(fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"%s","event_id":"evt_%d","session_id":"sess_1","timestamp":"2026-06-30T14:22:1%d.000Z","sequence_number":%d,"producer":{"agent_id":"a"},"urgency":"normal","summary_normal":"Step %d."%s}`, typ, seq, seq, seq, seq, extra))}
	}
	const answers = `"supports_confirmation_reply":true,"supports_clarification_reply":true`
	accepted := func(honored string) Record {
		return Record{Dir: In, Msg: []byte(`{"type":"subscription.accepted","subscription_id":"sub_1","aaep_version":"1.0.0","producer":{"agent_id":"a"},"honored_capabilities":{` + honored + `}}`)}
	}
	stream := func(first Record) []Record {
		return []Record{first, ev("aaep:agent.session.started", 0, ""),
			ev("aaep:agent.state.changed", 1, `,"from_state":"idle","to_state":"thinking"`),
			ev("aaep:agent.state.changed", 3, `,"from_state":"thinking","to_state":"acting"`)}
	}
	for _, tt := range []struct {
		name     string
		first    Record
		severity string
		words    string
	}{
		{"answers everything", accepted(answers), SeverityViolation, "missing or numbered wrong"},
		{"cannot answer", accepted(""), SeverityWarning, "leave out confirmations, questions"},
		{"filters types", accepted(answers + `,"event_filters":{"exclude":["aaep:agent.tool.invoked"]}`), SeverityWarning, "the event types it filters out"},
		{"no handshake", ev("aaep:agent.session.started", 0, ""), SeverityViolation, "missing or numbered wrong"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewChecker(CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			recs := stream(tt.first)
			if tt.name == "no handshake" {
				recs = recs[1:]
			}
			var gaps []Violation
			for i, rec := range recs {
				rec.Line = i + 2
				for _, v := range c.Check(rec).Violations {
					if v.Rule == "sequence-number" {
						gaps = append(gaps, v)
					} else if v.Severity == SeverityViolation {
						t.Errorf("unexpected %v", v)
					}
				}
			}
			if len(gaps) != 1 || gaps[0].Severity != tt.severity || !strings.Contains(gaps[0].Message, tt.words) {
				t.Fatalf("gaps %+v; want one %s saying %q", gaps, tt.severity, tt.words)
			}
		})
	}
}

// A tool call still open after toolWindow later calls is forgotten: its
// late tool.completed is no violation, a session ending with forgotten
// calls open counts them, and Finish says how many were forgotten.
func TestOpenToolCallsBounded(t *testing.T) {
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	check := func(body string) []Violation {
		line++
		ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%x","session_id":"sess_1","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"}}`, body, line, line-1)
		return c.Check(Record{Line: line, Dir: In, Msg: []byte(ev)}).Violations
	}
	tool := func(typ string, i int) string {
		return fmt.Sprintf(`"type":"aaep:agent.tool.%s","tool":"fetch","tool_call_id":"call_%d"`, typ, i)
	}
	check(`"type":"aaep:agent.session.started","summary_normal":"Hi."`)
	const open = toolWindow + 5 // calls 0 to 4 are forgotten
	for i := range open {
		if vs := check(tool("invoked", i) + `,"summary_normal":"Fetching."`); len(vs) > 0 {
			t.Fatalf("call %d: %v", i, vs)
		}
	}
	if n := len(c.sessions[sessionKey("", &protocol.Event{SessionID: "sess_1", Producer: protocol.Producer{AgentID: "a"}})].tools); n != toolWindow {
		t.Errorf("%d open calls followed, want %d", n, toolWindow)
	}
	for _, i := range []int{0, open - 1} { // one forgotten, one followed
		if vs := check(tool("completed", i) + `,"status":"success"`); len(vs) > 0 {
			t.Errorf("completion of call %d: %v", i, vs)
		}
	}
	vs := check(`"type":"aaep:agent.session.completed","summary_normal":"Done."`)
	if len(vs) != 1 || !strings.Contains(vs[0].Message, fmt.Sprintf("with %d tool calls never completed", open-2)) {
		t.Errorf("at the end: %v", vs)
	}
	fin := c.Finish()
	want := fmt.Sprintf("%d tool calls never completed; 5 were forgotten, to keep memory bounded, when still open after %d later tool calls (1 of them completed later", open-2, toolWindow)
	if len(fin) != 1 || fin[0].Rule != "open-tool-calls" || !strings.Contains(fin[0].Message, want) {
		t.Errorf("Finish: %v", fin)
	}
}

// A session that ended with a tool call open has no open calls any more:
// when the circle of calls comes round to that call, toolWindow calls
// later, it is not forgotten again (it was counted at the end), and one of
// a session that was forgotten is not either.
func TestEndedSessionsCallsNotForgotten(t *testing.T) {
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	check := func(session, body string) []Violation {
		line++
		ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%x","session_id":"%s","timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"}}`, body, line, session)
		return c.Check(Record{Line: line, Dir: In, Msg: []byte(ev)}).Violations
	}
	tool := func(typ string, i int) string {
		return fmt.Sprintf(`"type":"aaep:agent.tool.%s","tool":"fetch","tool_call_id":"call_%d"`, typ, i)
	}
	check("sess_a", `"type":"aaep:agent.session.started","summary_normal":"Hi."`)
	check("sess_a", tool("invoked", 0)+`,"summary_normal":"Fetching."`)
	if vs := check("sess_a", `"type":"aaep:agent.session.completed","summary_normal":"Done."`); len(vs) != 1 || !strings.Contains(vs[0].Message, "with 1 tool call never completed") {
		t.Fatalf("at the end of sess_a: %v", vs)
	}
	// The circle keeps the ended session for its call, and the session
	// keeps nothing else alive (its maps, its ID sharing a line).
	if s := c.calls.ring[0].session; s == nil || s.tools != nil || s.outputs != nil || s.id != "" {
		t.Errorf("the circle's first call names %+v, want sess_a, emptied", s)
	}
	check("sess_b", `"type":"aaep:agent.session.started","summary_normal":"Hi."`)
	for i := 1; i <= toolWindow+1; i++ {
		if vs := check("sess_b", tool("invoked", i)+`,"summary_normal":"Fetching."`); len(vs) > 0 {
			t.Fatalf("call %d: %v", i, vs)
		}
		if vs := check("sess_b", tool("completed", i)+`,"status":"success"`); len(vs) > 0 {
			t.Fatalf("completion of call %d: %v", i, vs)
		}
	}
	if fin := c.Finish(); len(fin) != 1 || fin[0].Rule != "bracketing" {
		t.Errorf("Finish: %v, want only sess_b's bracketing", fin)
	}
	if c.calls.forgotten != 0 || c.calls.neverCompleted != 1 {
		t.Errorf("%d calls forgotten, %d never completed; want 0 and 1", c.calls.forgotten, c.calls.neverCompleted)
	}
}

// TestCheckAllKeepsOrder: with decoding spread over several goroutines,
// every record is checked once and the steps come in the records' order,
// by CheckAll and by CheckSteps (which aaep-replay check uses), and the
// two hand over the same steps.
func TestCheckAllKeepsOrder(t *testing.T) {
	var buf bytes.Buffer
	const n = 20*batchSize + 7
	if err := writeToolCapture(&buf, n); err != nil {
		t.Fatal(err)
	}
	run := func(steps bool) []string {
		r, err := NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewChecker(CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		last := 0
		each := func(st *Step) {
			if st.Record.Line <= last {
				t.Fatalf("line %d checked after line %d", st.Record.Line, last)
			}
			last = st.Record.Line
			got = append(got, fmt.Sprintf("line %d %s %q %v", st.Record.Line, st.Type, st.Record.Msg, st.Violations))
		}
		if steps {
			err = c.CheckSteps(r, each)
		} else {
			err = c.CheckAll(r, func(st Step) { each(&st) })
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Errorf("%d records checked of %d", len(got), n)
		}
		return got
	}
	if all, steps := run(false), run(true); !slices.Equal(all, steps) {
		t.Errorf("CheckAll and CheckSteps differ:\n%s\n%s", strings.Join(all, "\n"), strings.Join(steps, "\n"))
	}
}

// TestCheckEventAllocations: checking an event of a session already known
// allocates the decoded event and little else: finding the session builds
// its key in the checker's buffer, not a new string each time; the target
// of errors.As for a message that is no event is not made for an event
// (3 allocations a state change, then 2, now 1); a streamed chunk's words
// for a violation are made only for a violation (2 allocations before, 1
// now). A tool call's invocation keeps its key's hash, not the key (2
// allocations before, 1 now), its completion finds it by the hash (1).
func TestCheckEventAllocations(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(i int) string
		want float64 // allocations an event
	}{
		{"state", func(int) string {
			return `"type":"aaep:agent.state.changed","from_state":"thinking","to_state":"working","summary_normal":"Hi."`
		}, 1},
		{"output", func(i int) string {
			return fmt.Sprintf(`"type":"aaep:agent.output.streaming","output_id":"out_1","position":%d,"chunk":"Hi. ","complete":false`, i)
		}, 1},
		{"tool pairs", func(i int) string {
			if i%2 == 1 {
				return fmt.Sprintf(`"type":"aaep:agent.tool.invoked","tool":"fetch","tool_call_id":"call_%d","summary_normal":"Hi."`, i)
			}
			return fmt.Sprintf(`"type":"aaep:agent.tool.completed","tool":"fetch","tool_call_id":"call_%d","status":"success"`, i-1)
		}, 1},
	} {
		c, err := NewChecker(CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		recs := make([]Record, 402)
		for i := range recs {
			body := `"type":"aaep:agent.session.started","summary_normal":"Hi."`
			if i > 0 {
				body = tc.body(i)
			}
			ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%x","session_id":"sess_1","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"}}`, body, i, i)
			recs[i] = Record{Line: i + 2, HasT: true, Dir: In, Msg: []byte(ev)}
		}
		c.Check(recs[0])
		c.Check(recs[1])
		i := 2
		allocs := testing.AllocsPerRun(199, func() {
			for range 2 {
				if st := c.Check(recs[i]); len(st.Violations) > 0 {
					t.Fatalf("%s: %v", tc.name, st.Violations)
				}
				i++
			}
		})
		if allocs/2 > tc.want {
			t.Errorf("%s: checking an event allocates %.1f times, want at most %.1f", tc.name, allocs/2, tc.want)
		}
	}
}

// A ring forgets its oldest key past its size, and its keys grow with use:
// a new checker's rings hold no room for keys (every collection scans it).
func TestRingGrowsWithUse(t *testing.T) {
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := cap(c.ended.keys) + cap(c.tokenIDs.keys); n != 0 {
		t.Errorf("a new checker's rings have room for %d keys, want 0", n)
	}
	r := newRing[int](3)
	for k := 1; k <= 7; k++ {
		prev, forgot, did := r.add(k, 10*k)
		if want := k > 3; prev != 0 || did != want || did && forgot != k-3 {
			t.Errorf("add(%d) = %d, %d, %v", k, prev, forgot, did)
		}
		if prev, _, did := r.add(k, 0); prev != 10*k || did {
			t.Errorf("add(%d) again = %d, %v; want %d, false", k, prev, did, 10*k)
		}
	}
	for k := 1; k <= 7; k++ {
		if r.has(k) != (k > 4) {
			t.Errorf("has(%d) = %v", k, r.has(k))
		}
	}
	if len(r.keys) != 3 || len(r.set) != 3 {
		t.Errorf("%d keys, %d in the set; want 3", len(r.keys), len(r.set))
	}
}

// TestRecentSessions: the sessions the checker finds without its map
// (Checker.session) are the right ones: two whose keys take the same place
// ("sess_1" and "sess_9") are told apart, each event counted in its own
// session; an ended session is no longer found there, so an event after
// its end is reported; a session forgotten to bound memory is not either.
func TestRecentSessions(t *testing.T) {
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	line := 1
	check := func(sess, typ string, seq int) []Violation {
		line++
		if typ == "state.changed" {
			typ += `","from_state":"thinking","to_state":"working`
		}
		ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.%s","event_id":"evt_%d","session_id":"%s","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"},"summary_normal":"Hi."}`, typ, line, sess, seq)
		return c.Check(Record{Line: line, HasT: true, Dir: In, Msg: []byte(ev)}).Violations
	}
	ids := []string{"sess_1", "sess_9", "sess_2", "sess_3"}
	for seq := range 5 {
		for _, id := range ids {
			typ := "state.changed"
			if seq == 0 {
				typ = "session.started"
			}
			if vs := check(id, typ, seq); len(vs) > 0 {
				t.Fatalf("%s, event %d: %v", id, seq, vs)
			}
		}
	}
	for _, id := range ids {
		s := c.sessions[sessionKey("", &protocol.Event{SessionID: id, Producer: protocol.Producer{AgentID: "a"}})]
		if s == nil || !s.seqKnown || s.lastSeq != 4 {
			t.Fatalf("%s: %+v, want its 5 events, numbered up to 4", id, s)
		}
	}
	if vs := check("sess_9", "session.completed", 5); len(vs) > 0 {
		t.Fatalf("sess_9's end: %v", vs)
	}
	for _, s := range c.recent {
		if s != nil && s.id == "" {
			t.Fatalf("an ended session is still found without the map: %+v", s)
		}
	}
	if vs := check("sess_9", "state.changed", 6); len(vs) != 1 || !strings.Contains(vs[0].Message, "already ended") {
		t.Errorf("an event after sess_9's end: %v, want it reported", vs)
	}
	if vs := check("sess_1", "state.changed", 5); len(vs) > 0 {
		t.Errorf("sess_1 after sess_9's end: %v", vs)
	}
	c.forgetOne()
	for _, s := range c.recent {
		if s != nil && c.sessions[s.key] != s {
			t.Fatalf("a forgotten session is still found without the map: %+v", s)
		}
	}
}

// A session's timestamps must not go back (spec §3.2.5): compared as
// instants, whatever their offsets, to the nanosecond, before 1970 too; an
// equal one is no violation, and one that went back is not the latest.
func TestTimestampOrder(t *testing.T) {
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		ts   string
		back string // the violation's duration, "" for none
	}{
		{"2026-06-30T14:22:11.342Z", ""},
		{"2026-06-30T16:22:11.341+02:00", "1ms"},
		{"2026-06-30T14:22:11.342Z", ""},
		{"2026-06-30T14:22:11.3419999Z", "100ns"},
		{"2026-06-30T14:22:11.3420001Z", ""},
		{"1970-01-01T00:00:00Z", "495230h22m11.3420001s"},
		{"2026-06-30T14:22:12Z", ""},
		{"1969-12-31T23:59:59.5Z", "495230h22m12.5s"},
	} {
		ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.state.changed","from_state":"thinking","to_state":"working","event_id":"evt_%d","session_id":"sess_1","timestamp":%q,"producer":{"agent_id":"a"}}`, i, tc.ts)
		var got []string
		for _, v := range c.Check(Record{Line: i + 2, HasT: true, Dir: In, Msg: []byte(ev)}).Violations {
			if v.Rule == "timestamp-order" {
				got = append(got, v.Message)
			}
		}
		want := 0
		if tc.back != "" {
			want = 1
		}
		if len(got) != want || want == 1 && !strings.Contains(got[0], "goes back "+tc.back+" from") {
			t.Errorf("event %d (%s): %q, want it to go back %q", i, tc.ts, got, tc.back)
		}
	}
	// The long ones, as time.Time tells them.
	for _, d := range [][2]string{{"2026-06-30T14:22:11.3420001Z", "1970-01-01T00:00:00Z"}, {"2026-06-30T14:22:12Z", "1969-12-31T23:59:59.5Z"}} {
		a, _ := time.Parse(time.RFC3339Nano, d[0])
		b, _ := time.Parse(time.RFC3339Nano, d[1])
		if back := a.Sub(b).String(); back != "495230h22m11.3420001s" && back != "495230h22m12.5s" {
			t.Errorf("%s back to %s is %s", d[0], d[1], back)
		}
	}
}
