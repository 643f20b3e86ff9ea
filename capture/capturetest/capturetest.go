// Package capturetest holds what the tests of recordings share: reading a
// capture file whole, and the demo producer on loopback with prompts that
// wait long enough for an automatic reply.
package capturetest

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/producer"
)

// ReadAll reads every record of the capture at path; the reader is closed
// when the test ends.
func ReadAll(t testing.TB, path string) (*capture.Reader, []capture.Record) {
	t.Helper()
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	recs, err := r.Records()
	if err != nil {
		t.Fatal(err)
	}
	return r, recs
}

// PromptingProducer serves the demo producer on loopback, every scenario
// at once, with prompts that wait 3 s for a reply: time enough for an
// automatic one to settle them. It is closed when the test ends.
func PromptingProducer(t testing.TB) (*producer.Producer, string) {
	t.Helper()
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: all, Speed: 0, EndWhenDone: true, PromptTimeout: 3 * time.Second})
	srv := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); srv.Close() })
	return p, srv.URL
}
