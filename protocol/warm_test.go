package protocol

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/capturetest"
	"github.com/aaep-term/aaep-term/internal/spectest"
)

// FuzzWarmDecoderAgrees holds a Decoder that has decoded other messages
// (its verdicts and their older values, the values they passed, and which
// member followed which) to a fresh one: after a, b and c, d decodes to
// the same event and the same error, whatever a, b and c were. A value a
// warm decoder takes unscanned, or a name it takes from the order it saw
// before, must read as a scan reads it.
func FuzzWarmDecoderAgrees(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(spectest.Dir(f), "fixtures", "valid", "agent.*.json"))
	var seeds []string
	for _, file := range files {
		b, _ := os.ReadFile(file)
		seeds = append(seeds, string(b))
	}
	variants := []string{
		typical,
		strings.Replace(typical, `"low"`, `"high"`, 1),
		strings.Replace(typical, `"producer":{`, `"producer":{"agent_id":"x",`, 1),
		strings.Replace(typical, `"type":"aaep:agent.tool.invoked"`, `"type":"aaep:agent.session.started"`, 1),
		strings.Replace(typical, `"fetch_report"`, `"fetch_report\u0000"`, 1),
		strings.Replace(typical, `"Fetching."`, `"Fetch\u0069ng."`, 1),
		strings.Replace(typical, `"irreversible":false`, `"irreversible":"false"`, 1),
		strings.Replace(typical, `"urgency":"normal",`, `"extensions":{"x_a":[[[[{"b":"c"}]]]]},"urgency":"normal",`, 1),
		typical[:len(typical)/2],
	}
	other := strings.Replace(typical, `"sess_000000000007"`, `"sess_1"`, 1)
	for _, a := range variants {
		for _, c := range variants {
			f.Add([]byte(a), []byte(typical), []byte(other), []byte(c))
		}
	}
	for i, s := range seeds {
		f.Add([]byte(s), []byte(seeds[(i+1)%len(seeds)]), []byte(seeds[(i+2)%len(seeds)]), []byte(s))
	}
	// A capture's rotation: sessions and types in turn, the value at hand
	// one of a member's older ones.
	for i := range 16 {
		f.Add(capturetest.ToolEvent(i), capturetest.ToolEvent(i+1), capturetest.ToolEvent(i+4), capturetest.ToolEvent(i+2*(i%3)))
	}
	s, err := NewSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b, c, d []byte) {
		warm := Decoder{Schemas: s}
		_, _ = warm.Decode(a)
		_, _ = warm.Decode(b)
		_, _ = warm.Decode(c)
		fresh := Decoder{Schemas: s}
		ew, errW := warm.Decode(d)
		ef, errF := fresh.Decode(d)
		if !sameError(errW, errF) {
			t.Fatalf("a decoder used before: %v\na fresh one: %v", errW, errF)
		}
		if !reflect.DeepEqual(ew, ef) {
			t.Fatalf("a decoder used before decodes another event:\n%+v\na fresh one:\n%+v", ew, ef)
		}
	})
}
