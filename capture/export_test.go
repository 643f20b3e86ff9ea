package capture

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// TestExportJSONL: the export holds the received events of a capture and
// nothing else (its handshake and replies stay in the .aaep file, which
// readers of plain event JSONL would refuse), and exporting an export
// again changes nothing.
func TestExportJSONL(t *testing.T) {
	t.Parallel()
	var in bytes.Buffer
	w, err := NewWriter(&in, Header{Endpoint: "http://127.0.0.1:1"}, time.Now(), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		d   Dir
		msg string
	}{
		{Out, `{"type":"subscription.request","aaep_version":"1.0.0"}`},
		{In, `{"type":"subscription.accepted","subscription_id":"sub_1"}`},
		{In, sampleEvent},
		{In, `{"type":"confirmation.reply","reply_token":"rpl_1","decision":"reject"}`},
		{In, `not json`},
		{In, `{"type":"subscription.close","subscription_id":"sub_1"}`},
	} {
		if err := w.Write(m.d, []byte(m.msg), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	got := export(t, in.Bytes())
	if got != sampleEvent+"\n" {
		t.Errorf("exported %q, want the event alone", got)
	}
	if again := export(t, []byte(got)); again != got {
		t.Errorf("exported again %q, want %q", again, got)
	}

	// Every event of a capture of the corpus, in order.
	r, err := Open("testdata/corpus/clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var want bytes.Buffer
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if !rec.Note && rec.Dir == In && !rec.IsText() {
			want.Write(append(rec.Msg, '\n'))
		}
	}
	raw, err := os.ReadFile("testdata/corpus/clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	if got := export(t, raw); got != want.String() || got == "" {
		t.Errorf("clean.aaep exported:\n%s\nwant:\n%s", got, want.String())
	}
}

func export(t *testing.T, in []byte) string {
	t.Helper()
	r, err := NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ExportJSONL(r, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
