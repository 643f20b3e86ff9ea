package capture_test

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/aaep-term/aaep-term/capture"
)

// Check a capture and print each violation with its line, session and section.
func ExampleChecker_CheckAll() {
	r, err := capture.Open("testdata/corpus/after-reject.aaep")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	c, err := capture.NewChecker(capture.CheckOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = c.CheckAll(r, func(st capture.Step) {
		for _, v := range st.Violations {
			fmt.Printf("line %d, %s, section %s\n", v.Line, v.Rule, v.Section)
		}
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// line 5, confirmation, section 4.5.3
}

// Write a redacted capture: a header line, then one whole line per message.
func ExampleNewWriter() {
	start := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC)
	w, err := capture.NewWriter(os.Stdout, capture.Header{Tool: "example"}, start, capture.WriterOptions{Redactor: capture.NewRedactor()})
	if err != nil {
		fmt.Println(err)
		return
	}
	msg := `{"type":"confirmation.reply","reply_token":"rpl_secret42","decision":"accept","args_summary":"password: hunter2"}`
	if err := w.Write(capture.Out, []byte(msg), start.Add(1500*time.Millisecond)); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","redacted":true,"tool":"example"}
	// [1.500000,"o",{"type":"confirmation.reply","reply_token":"rpl_74c78844","decision":"accept","args_summary":"password: *******"}]
}

// Write a capture, read it back and check it: the agent ran an
// irreversible tool without asking first, and the checker says which rule
// that breaks and where the spec states it.
func Example_roundTrip() {
	const envelope = `"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0",` +
		`"session_id":"sess_000000000001","timestamp":"2026-06-30T14:22:10Z","producer":{"agent_id":"pay"}`
	events := []string{
		`{` + envelope + `,"type":"aaep:agent.session.started","event_id":"evt_0000000000000001","sequence_number":0,"summary_normal":"Paying the bill."}`,
		`{` + envelope + `,"type":"aaep:agent.tool.invoked","event_id":"evt_0000000000000002","sequence_number":1,` +
			`"tool":"transfer_money","tool_call_id":"call_1","irreversible":true,"risk_level":"high","summary_normal":"Sending 86.40 euros."}`,
	}

	// Write: a header line, then one [seconds, direction, message] line each.
	var file bytes.Buffer
	start := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC)
	w, err := capture.NewWriter(&file, capture.Header{Tool: "example", Endpoint: "http://127.0.0.1:8080"}, start, capture.WriterOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, ev := range events {
		if err := w.Write(capture.In, []byte(ev), start.Add(time.Duration(i+1)*time.Second)); err != nil {
			fmt.Println(err)
			return
		}
	}

	// Read it back and check it.
	r, err := capture.NewReader(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Kind(), r.Header().Endpoint)
	c, err := capture.NewChecker(capture.CheckOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	say := func(v capture.Violation) {
		fmt.Printf("  %s (%s, section %s): %s\n", v.Rule, v.Severity, v.Section, v.Message)
	}
	err = c.CheckAll(r, func(st capture.Step) {
		fmt.Printf("line %d at %.1fs: %s\n", st.Record.Line, st.Record.T, st.Type)
		for _, v := range st.Violations {
			say(v)
		}
	})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println("at the end:")
	for _, v := range c.Finish() { // what only the whole capture shows
		say(v)
	}
	// Output:
	// aaep http://127.0.0.1:8080
	// line 2 at 1.0s: aaep:agent.session.started
	// line 3 at 2.0s: aaep:agent.tool.invoked
	//   unconfirmed-irreversible (violation, section 4.3.1): Irreversible tool transfer_money (call call_1) was invoked with no confirmation asked before it.
	// at the end:
	//   bracketing (warning, section 4.5.1): Session sess_000000000001, started on line 2, had not ended when the capture stopped.
}
