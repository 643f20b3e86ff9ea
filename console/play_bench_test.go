package console

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/line"
)

// BenchmarkPlay plays a capture of 200,000 events as fast as possible
// (--speed 0) into the JSON sink, discarding its output.
func BenchmarkPlay(b *testing.B) {
	const n = 200_000
	path := filepath.Join(b.TempDir(), "play.aaep")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, `{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","redacted":false}`)
	base := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC)
	for i := 0; i < n; i++ {
		sess, step := i/10, i%10
		var body string
		switch step {
		case 0:
			body = `"type":"aaep:agent.session.started","summary_normal":"Research Assistant is looking up the figures."`
		case 9:
			body = `"type":"aaep:agent.session.completed","summary_normal":"Done."`
		default:
			body = fmt.Sprintf(`"type":"aaep:agent.output.streaming","output_id":"out_1","position":%d,"chunk":"Revenue grew by four percent. ","complete":%v`, (step-1)*30, step == 8)
		}
		fmt.Fprintf(w, `[%.6f,"i",{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%x","session_id":"sess_%x","sequence_number":%d,"timestamp":"%s","producer":{"agent_id":"research-assistant","agent_name":"Research Assistant"}}]`+"\n",
			float64(i)/1000, body, i, sess, step, base.Add(time.Duration(i)*time.Millisecond).Format("2006-01-02T15:04:05.000Z"))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ResetTimer()
	for b.Loop() {
		rd, err := capture.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		p := NewPlayer(PlayConfig{Name: "aaep-replay", ErrOut: io.Discard, Verbosity: "normal"}, line.NewJSON(io.Discard))
		if err := p.Play(context.Background(), rd, 0, time.Second); err != nil {
			b.Fatal(err)
		}
		rd.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}
