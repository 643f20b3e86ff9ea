package protocol

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

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
	// Events of one type in a row (templates: FuzzTemplateAgrees), the
	// capture's and the flood's, the last one changed.
	for i := range 8 {
		a, b, c := capturetest.ToolEvent(40_000+i), capturetest.ToolEvent(40_001+i), capturetest.ToolEvent(40_002+i)
		f.Add(a, b, c, capturetest.ToolEvent(40_003+i))
		f.Add(a, b, c, bytes.Replace(c, []byte(`"urgency":"normal"`), []byte(`"urgency":"nearly"`), 1))
		f.Add(floodEvent(i), floodEvent(i+1), floodEvent(i+2), floodEvent(i+3))
		f.Add(floodEvent(i), floodEvent(i+1), floodEvent(i+2), bytes.Replace(floodEvent(i+3), []byte(`"step":`), []byte(`"step":"`), 1))
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

// floodEvent is event i of a flood like producer.Flood's (what the
// listener's benchmark reads): 64 sessions, sequence numbers and the
// progress step right-aligned after spaces.
func floodEvent(i int) []byte {
	ev := strings.Replace(flood, `"evt_8a00f8700000000000000002"`, fmt.Sprintf(`"evt_8a00f870%016x"`, i), 1)
	ev = strings.Replace(ev, `"sess_8a00f87000000000"`, fmt.Sprintf(`"sess_8a00f870%08x"`, i%64), 1)
	seq := fmt.Sprintf("%20d", i/64+1)
	ev = strings.Replace(ev, `"sequence_number":                   1`, `"sequence_number":`+seq, 1)
	ev = strings.Replace(ev, `"step":                   1`, `"step":`+seq, 1)
	t := time.Date(2026, 11, 29, 12, 52, 11, 25e6, time.UTC).Add(time.Duration(i) * time.Millisecond)
	return []byte(strings.Replace(ev, `"2026-11-29T12:52:11.025Z"`, `"`+t.Format("2006-01-02T15:04:05.000Z")+`"`, 1))
}

// edit returns b with n bytes at p (taken within b) replaced by ins.
func edit(b []byte, p, n int, ins []byte) []byte {
	if len(b) == 0 {
		return append([]byte(nil), ins...)
	}
	p = p % (len(b) + 1)
	n = min(n, len(b)-p)
	out := append([]byte(nil), b[:p]...)
	out = append(out, ins...)
	return append(out, b[p+n:]...)
}

// FuzzTemplateAgrees holds a Decoder that keeps a's message as the
// template of its type to a fresh one, on messages made from a by a few
// bytes replaced (at every place: a value, a name, a quote, a brace, the
// end) and then from that one again: each decodes to the same event, the
// same error and the same PeekedType. A value the template path takes
// unscanned must be the template's, and a value it scans must be checked
// as the member loop checks it.
func FuzzTemplateAgrees(f *testing.F) {
	seeds := [][]byte{capturetest.ToolEvent(40_001), floodEvent(130), []byte(typical)}
	ins := []string{"", "1", "9", `"`, `\`, `\"`, `\u0041`, "\x00", "\x1f", " ", ",", `,"event_id":"evt_1"`, "}", "{", "[1]", `{"a":1}`, "é", "\xff", "null", "1e3", "-0", "."}
	for _, s := range seeds {
		for _, p := range []int{0, 1, 30, 60, 100, 110, 140, 200, 260, 300, 400, 500, len(s) - 6, len(s) - 3, len(s) - 2, len(s) - 1, len(s)} {
			for k, in := range ins {
				f.Add(s, uint16(p), uint8(k%3), []byte(in), uint16(p+7*k), uint8(1), []byte(ins[(k+5)%len(ins)]))
			}
		}
	}
	for i := range 8 {
		a, b := capturetest.ToolEvent(40_000+i), capturetest.ToolEvent(40_004+i)
		f.Add(a, uint16(0), uint8(0), []byte(nil), uint16(0), uint8(0), []byte(nil))
		if d := firstDiff(a, b); d < len(a) {
			f.Add(a, uint16(d), uint8(4), b[d:d+4], uint16(d+40), uint8(2), []byte("7"))
		}
	}
	s, err := NewSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a []byte, p1 uint16, n1 uint8, in1 []byte, p2 uint16, n2 uint8, in2 []byte) {
		b := edit(a, int(p1), int(n1), in1)
		c := edit(b, int(p2), int(n2), in2)
		warm := Decoder{Schemas: s}
		var room EventRoom
		// The events Decode returned, and a fresh decoder's: compared
		// again once the later messages are decoded (a field taken from a
		// template must not change when the template does).
		var kept, keptFresh []*Event
		for k, m := range [][]byte{a, b, c, a, c} {
			// The caller's buffer is reused: the template must be a copy.
			buf := append([]byte(nil), m...)
			var ew *Event
			var errW error
			if k%2 == 0 {
				ew, errW = warm.DecodeInto(buf, &room)
			} else {
				ew, errW = warm.Decode(buf)
			}
			fresh := Decoder{Schemas: s}
			ef, errF := fresh.Decode(m)
			if !sameError(errW, errF) {
				t.Fatalf("message %d %q: a decoder with templates: %v\na fresh one: %v", k, m, errW, errF)
			}
			if !reflect.DeepEqual(ew, ef) && !(ew != nil && ef != nil && reflect.DeepEqual(ew.Clone(), ef.Clone())) {
				t.Fatalf("message %d %q: a decoder with templates decodes another event:\n%+v\na fresh one:\n%+v", k, m, ew, ef)
			}
			if pw, pf := warm.PeekedType(buf, ew), fresh.PeekedType(m, ef); pw != pf {
				t.Fatalf("message %d %q: PeekedType %q, a fresh decoder's %q", k, m, pw, pf)
			}
			if k%2 == 1 && ew != nil {
				// Decode's event shares buf, which stays as it is.
				kept, keptFresh = append(kept, ew), append(keptFresh, ef)
				continue
			}
			for i := range buf {
				buf[i] = 'x'
			}
		}
		for i, ew := range kept {
			if !reflect.DeepEqual(ew.Clone(), keptFresh[i].Clone()) {
				t.Fatalf("event %d of Decode changed after the later messages:\n%+v\na fresh decoder's:\n%+v", i, ew, keptFresh[i])
			}
		}
	})
}
