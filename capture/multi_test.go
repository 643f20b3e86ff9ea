package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func twoConnHeader() Header {
	return Header{Tool: "test", Connections: []Connection{
		{ID: "c1", Label: "mail", Endpoint: "http://127.0.0.1:8081", Transport: "sse", Subscriber: "aaep-capture"},
		{ID: "c2", Label: "code", Endpoint: "ws://127.0.0.1:8082/aaep/v1/ws", Transport: "websocket", Subscriber: "aaep-capture"},
	}}
}

// readAll returns every record of in, and the diagnostics.
func readConns(t *testing.T, in string) (*Reader, []Record, []Diagnostic) {
	t.Helper()
	r, err := NewReader(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	d, _ := r.Diagnostics()
	return r, recs, d
}

// A capture of two connections is version 2: its header names them and
// every record says which one it came from; it reads back as written.
func TestWriteReadTwoConnections(t *testing.T) {
	var buf bytes.Buffer
	start := time.Now()
	w, err := NewWriter(&buf, twoConnHeader(), start, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.NoteFrom("c1", "connected", "", start))
	must(w.WriteFrom("c2", In, []byte(sampleEvent), start.Add(time.Millisecond)))
	must(w.WriteFrom("c1", Out, []byte(`{"type":"subscription.close"}`), start.Add(2*time.Millisecond)))
	must(w.WriteFrom("c2", In, []byte("not json"), start.Add(3*time.Millisecond)))
	if err := w.WriteFrom("c3", In, []byte(sampleEvent), start); err == nil {
		t.Error("a connection the header does not name was written")
	}
	if err := w.Write(In, []byte(sampleEvent), start); err == nil {
		t.Error("a record with no connection was written into a version-2 capture")
	}
	first, _, _ := strings.Cut(buf.String(), "\n")
	if !strings.HasPrefix(first, `{"aaep_capture":2,`) || !strings.Contains(first, `"connections":[{"id":"c1","label":"mail"`) {
		t.Errorf("header: %s", first)
	}
	r, recs, diags := readConns(t, buf.String())
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	var got []string
	for _, rec := range recs {
		got = append(got, rec.Conn+":"+string(rec.Dir))
	}
	if want := "c1:i c2:i c1:o c2:i"; strings.Join(got, " ") != want {
		t.Errorf("records %q, want %q", got, want)
	}
	if !recs[0].Note || !recs[3].IsText() {
		t.Errorf("note %v, text %v", recs[0].Note, recs[3].IsText())
	}
	if c := r.Connection("c2"); c.Name() != "code" || c.Transport != "websocket" {
		t.Errorf("connection c2: %+v", c)
	}
	if n := len(r.Header().Connections); n != 2 {
		t.Errorf("%d connections in the header", n)
	}
}

// One connection is still written as version 1, byte for byte as before.
func TestOneConnectionIsVersion1(t *testing.T) {
	var buf bytes.Buffer
	start := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC)
	w, err := NewWriter(&buf, Header{Endpoint: "http://x", Transport: "sse"}, start, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(In, []byte(`{"a":1}`), start); err != nil {
		t.Fatal(err)
	}
	want := `{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","endpoint":"http://x","transport":"sse","redacted":false}` + "\n" + `[0.000000,"i",{"a":1}]` + "\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if err := w.WriteFrom("c1", In, []byte(`{"a":1}`), start); err == nil {
		t.Error("a version-1 capture took a connection")
	}
}

// The reader's rules for the connection of a record, fast path and slow.
func TestReadConnectionRules(t *testing.T) {
	v2 := `{"aaep_capture":2,"started_at":"x","connections":[{"id":"a","endpoint":"e1"},{"id":"b","label":"bee","endpoint":"e2"},{"id":"a","endpoint":"dup"},{"id":"bad id","endpoint":"e3"}]}` + "\n"
	ev := `{"type":"aaep:agent.session.started"}`
	for _, tc := range []struct {
		name, in string
		want     string // conns of the records read
		diags    int
	}{
		{"fast", v2 + `[0.1,"i",` + ev + `,"a"]` + "\n" + `[0.2,"o",` + ev + `, "b" ]` + "\n", "a b", 2},
		{"slow", v2 + `[0.1, "i", ` + ev + ` , "b"]` + "\n" + `[0.2,"i","text","a"]` + "\n", "b a", 2},
		{"no connection in v2", v2 + `[0.1,"i",` + ev + `]` + "\n", "", 2},
		{"unknown connection", v2 + `[0.1,"i",` + ev + `,"c"]` + "\n" + `[0.1,"i",` + ev + `,"a"]` + "\n", "a", 3},
		{"connection not a string", v2 + `[0.1,"i",` + ev + `,7]` + "\n", "", 3},
		{"invalid id", v2 + `[0.1,"i",` + ev + `,"a b"]` + "\n", "", 3},
		{"too many elements", v2 + `[0.1,"i",` + ev + `,"a","b"]` + "\n", "", 3},
		{"version 1 reads as before", `{"aaep_capture":1,"started_at":"x"}` + "\n" + `[0.1,"i",` + ev + `,"a"]` + "\n", "", 1},
		{"no header", `[0.1,"i",` + ev + `,"zz"]` + "\n", "zz", 1},
		{"version 2 naming none", `{"aaep_capture":2,"started_at":"x"}` + "\n" + `[0.1,"i",` + ev + `]` + "\n", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, recs, diags := readConns(t, tc.in)
			var got []string
			for _, r := range recs {
				got = append(got, r.Conn)
			}
			if strings.Join(got, " ") != tc.want || len(diags) != tc.diags {
				t.Errorf("conns %q, want %q; %d diagnostics, want %d: %v", got, tc.want, len(diags), tc.diags, diags)
			}
		})
	}
}

// twinCapture is a version-2 capture of two connections to two instances of
// the same producer: the same agent, session, event IDs and reply token on
// each, their records interleaved. Connection a has a handshake and answers
// its prompt; connection b has none (the deployed layout) and answers too.
func twinCapture() string {
	var b strings.Builder
	b.WriteString(`{"aaep_capture":2,"started_at":"2026-06-30T14:00:00Z","redacted":false,"connections":[{"id":"a","label":"mail","endpoint":"http://127.0.0.1:1"},{"id":"b","label":"code","endpoint":"ws://127.0.0.1:2"}]}` + "\n")
	ev := func(t float64, seq int, typ, extra string) string {
		return fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.%s","event_id":"evt_%d","session_id":"sess_1","timestamp":"2026-06-30T14:00:0%gZ","producer":{"agent_id":"twin"},"sequence_number":%d,"summary_normal":"Step."%s}`, typ, seq, t, seq, extra)
	}
	confirm := `,"urgency":"critical","action":"Delete it.","consequence":"Gone.","reply_token":"rpl_same","timeout_seconds":60,"default_decision":"reject"`
	reply := func(sub string) string {
		return `{"type":"confirmation.reply",` + sub + `"reply_token":"rpl_same","decision":"reject","timestamp":"2026-06-30T14:00:03Z"}`
	}
	lines := []struct {
		t    float64
		dir  string
		msg  string
		conn string
	}{
		{0, "i", `{"type":"subscription.accepted","subscription_id":"sub_1","aaep_version":"1.0.0","producer":{"agent_id":"twin"},"honored_capabilities":{"supports_confirmation_reply":true,"supports_clarification_reply":true}}`, "a"},
		{1, "i", ev(1, 0, "session.started", ""), "a"},
		{1, "i", ev(1, 0, "session.started", ""), "b"},
		{2, "i", ev(2, 1, "awaiting.confirmation", confirm), "a"},
		{2, "i", ev(2, 1, "awaiting.confirmation", confirm), "b"},
		{3, "o", reply(`"subscription_id":"sub_1",`), "a"},
		{3, "o", reply(""), "b"},
		{4, "i", ev(4, 2, "state.changed", `,"from_state":"awaiting_input","to_state":"thinking"`), "b"},
		{4, "i", ev(4, 2, "state.changed", `,"from_state":"awaiting_input","to_state":"thinking"`), "a"},
		{5, "i", ev(5, 3, "session.completed", ""), "a"},
		{5, "i", ev(5, 3, "session.completed", ""), "b"},
	}
	for _, l := range lines {
		fmt.Fprintf(&b, "[%g,%q,%s,%q]\n", l.t, l.dir, l.msg, l.conn)
	}
	return b.String()
}

// Two connections are checked each on its own: the same session, event IDs
// and reply token on two agents is no duplicate, no second start and no
// second reply; only connection b's missing handshake is said, once.
func TestCheckPerConnection(t *testing.T) {
	r, err := NewReader(strings.NewReader(twinCapture()))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = c.CheckAll(r, func(st Step) {
		for _, v := range st.Violations {
			got = append(got, v.Conn+" "+v.Rule+" "+v.Severity)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range c.Finish() {
		got = append(got, v.Conn+" "+v.Rule+" "+v.Severity)
	}
	if want := []string{"b no-handshake warning"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("problems %q, want %q", got, want)
	}
	if d, _ := r.Diagnostics(); len(d) != 0 {
		t.Errorf("diagnostics %v", d)
	}
}

// Stats and the trace count per connection: two sessions, one per agent,
// each with its prompt answered; the agents are named by their labels.
func TestStatsAndTracePerConnection(t *testing.T) {
	open := func() *Reader {
		r, err := NewReader(strings.NewReader(twinCapture()))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	st, err := BuildStats(open(), "x", CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range st.Sessions {
		got = append(got, fmt.Sprintf("%s/%s %d events %d rejected %d violations", s.Connection, s.ID, s.Events, s.Confirmations.Rejected, s.Violations))
	}
	want := []string{"mail/sess_1 4 events 1 rejected 0 violations", "code/sess_1 4 events 1 rejected 0 violations"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sessions\n%q\nwant\n%q", got, want)
	}
	got = nil
	for _, a := range st.Agents {
		got = append(got, fmt.Sprintf("%s %s %d sessions %d events", a.Connection, a.ID, a.Sessions, a.Events))
	}
	want = []string{"code twin 1 sessions 4 events", "mail twin 1 sessions 4 events"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("agents\n%q\nwant\n%q", got, want)
	}
	if st.Total.Events != 8 || st.Total.Confirmations.Rejected != 2 {
		t.Errorf("total: %d events, %d rejected", st.Total.Events, st.Total.Confirmations.Rejected)
	}
	tr, err := BuildTrace(open(), "x", CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, s := range tr.Sessions {
		got = append(got, fmt.Sprintf("%s %s %d steps %s", s.Connection, s.ID, len(s.Steps), s.Ended))
	}
	want = []string{"mail sess_1 5 steps session.completed", "code sess_1 5 steps session.completed"}
	if strings.Join(got, "|") != strings.Join(want, "|") || tr.Violations != 0 {
		t.Errorf("trace %q (%d violations), want %q", got, tr.Violations, want)
	}
	var text, html, stext strings.Builder
	if err := tr.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteText(&stext); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"\nConnection mail: 1 session.\n\nSession sess_1, agent twin on connection mail: ", "\nConnection code: 1 session.\n", "received subscription.accepted, connection mail."} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("trace text lacks %q:\n%s", w, text.String())
		}
	}
	for _, w := range []string{`<h2 id="c0">Connection mail: 1 session</h2>`, `<h3 id="s1">Session sess_1, agent twin on connection code</h3>`} {
		if !strings.Contains(html.String(), w) {
			t.Errorf("HTML lacks %q", w)
		}
	}
	for _, w := range []string{"\nAgent twin on connection code, 1 session:\n", "\nSession sess_1 of agent twin on connection mail, ended with agent.session.completed:\n"} {
		if !strings.Contains(stext.String(), w) {
			t.Errorf("stats text lacks %q:\n%s", w, stext.String())
		}
	}
}

// Redaction holds for every connection of a version-2 capture.
func TestRedactTwoConnections(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, twoConnHeader(), time.Now(), WriterOptions{Redactor: NewRedactor()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"c1", "c2"} {
		if err := w.WriteFrom(c, Out, []byte(`{"type":"x","token":"s3cret","reply_token":"rpl_0123456789"}`), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(buf.String(), "s3cret") || strings.Contains(buf.String(), "rpl_0123456789") || !strings.Contains(buf.String(), `"redacted":true`) {
		t.Errorf("not redacted:\n%s", buf.String())
	}
}

// BenchmarkReadConnections reads 100,000 records of version 1 and of
// version 2 (each naming its connection): the connection costs the fast
// path a scan of the line's last bytes.
func BenchmarkReadConnections(b *testing.B) {
	for _, v := range []struct{ name, header, suffix string }{
		{"v1", `{"aaep_capture":1,"started_at":"x"}`, ""},
		{"v2", `{"aaep_capture":2,"started_at":"x","connections":[{"id":"c1","endpoint":"a"},{"id":"c2","endpoint":"b"}]}`, `,"c2"`},
	} {
		var buf bytes.Buffer
		buf.WriteString(v.header + "\n")
		for i := 0; i < 100_000; i++ {
			fmt.Fprintf(&buf, "[%.6f,\"i\",%s%s]\n", float64(i)/1000, sampleEvent, v.suffix)
		}
		in := buf.Bytes()
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for i := 0; i < b.N; i++ {
				r, err := NewReader(bytes.NewReader(in))
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					if _, err := r.Next(); err != nil {
						break
					}
					n++
				}
				if d, _ := r.Diagnostics(); n != 100_000 || len(d) != 0 {
					b.Fatalf("%d records, %v", n, d)
				}
			}
		})
	}
}

// FuzzWriteReadConnection: whatever a connection sends, written into a
// version-2 capture, reads back as the same message of the same connection.
func FuzzWriteReadConnection(f *testing.F) {
	f.Add([]byte(sampleEvent), "c1")
	f.Add([]byte(`{"a":"\",\"c1\""}`), "c2")
	f.Add([]byte("not json\",\"c1"), "c1")
	f.Add([]byte(`{"x":[1,2,"]"]}`), "c2")
	f.Fuzz(func(t *testing.T, msg []byte, pick string) {
		conn := "c1"
		if len(pick)%2 == 1 {
			conn = "c2"
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, twoConnHeader(), time.Now(), WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFrom(conn, In, msg, time.Now()); err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil {
			d, _ := r.Diagnostics()
			t.Fatalf("%q did not read back: %v %v\n%s", msg, err, d, buf.String())
		}
		if rec.Conn != conn {
			t.Fatalf("%q read back from %q, want %q", msg, rec.Conn, conn)
		}
		if !rec.IsText() && !json.Valid(rec.Msg) {
			t.Fatalf("%q read back as %q", msg, rec.Msg)
		}
	})
}
