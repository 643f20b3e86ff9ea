package capture_test

import (
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
