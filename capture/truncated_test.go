package capture

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// gzipCapture is a gzip-compressed capture of n records, and the plain text.
func gzipCapture(t testing.TB, n int) (plain, z []byte) {
	t.Helper()
	var p bytes.Buffer
	fmt.Fprintln(&p, `{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z"}`)
	for i := range n {
		fmt.Fprintf(&p, `[%d.5,"i",{"type":"aaep:agent.state.changed","event_id":"evt_%04d","session_id":"sess_a","sequence_number":%d,"from_state":"idle","to_state":"thinking"}]`+"\n", i, i, i)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(p.Bytes())
	zw.Close()
	return p.Bytes(), zb.Bytes()
}

// completeRecords is how many records the first part of a cut gzip file
// holds whole: the lines the decompressor gives before the cut, less the header.
func completeRecords(t *testing.T, cut []byte) int {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("the cut file reads with %v, not as cut short", err)
	}
	return max(bytes.Count(got, []byte{'\n'})-1, 0)
}

// A gzip capture cut anywhere after its gzip header gives every complete
// record before the cut, then a diagnostic saying the file is cut short;
// reading never fails.
func TestReaderTruncatedGzip(t *testing.T) {
	plain, z := gzipCapture(t, 200)
	lines := strings.Split(string(plain), "\n")
	for _, cut := range []int{12, 40, len(z) / 3, len(z) / 2, len(z) - 100, len(z) - 9, len(z) - 4, len(z) - 1} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			want := completeRecords(t, z[:cut])
			r, err := NewReader(bytes.NewReader(z[:cut]))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("after %d records: %v", n, err)
				}
				if line := lines[rec.Line-1]; !strings.Contains(line, string(rec.Msg)) {
					t.Fatalf("record on line %d is %s, not from %s", rec.Line, rec.Msg, line)
				}
				n++
			}
			if n != want {
				t.Errorf("%d records, want the %d complete before the cut", n, want)
			}
			diags, _ := r.Diagnostics()
			if len(diags) == 0 || !diags[len(diags)-1].Truncated || !strings.Contains(diags[len(diags)-1].Message, "gzip") {
				t.Errorf("diagnostics %+v; want the last to say the gzip file is cut short", diags)
			}
		})
	}
}
