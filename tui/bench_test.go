package tui

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/aaep-term/aaep-term/announce"
)

// fullModel is a model holding n events on a 120x40 screen.
func fullModel(tb testing.TB, n int) *Model {
	tb.Helper()
	m := New(Options{Theme: ThemeColor, Renderer: lipgloss.NewRenderer(io.Discard), Location: time.UTC, Capacity: n})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	base := testItems(50)
	items := make([]Item, n)
	for i := range items {
		items[i] = base[i%len(base)]
		items[i].At = t0.Add(time.Duration(i) * time.Millisecond)
		items[i].Text = "Reading file number " + strconv.Itoa(i) + " of the project to answer the question"
	}
	m.ingest(items)
	return m
}

func BenchmarkView100k(b *testing.B) {
	m := fullModel(b, 100_000)
	m.showDetail = true
	m.pause()
	m.move(-50_000) // somewhere in the middle
	b.ResetTimer()
	for b.Loop() {
		_ = m.View()
	}
}

func BenchmarkFilter100k(b *testing.B) {
	m := fullModel(b, 100_000)
	for _, expr := range []string{"type:tool.* urgency:normal", "file number 9999", "session:s-1 -tool:read_*"} {
		f, err := ParseFilter(expr)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(expr, func(b *testing.B) {
			for b.Loop() {
				m.applyFilter(f)
			}
		})
	}
}

func BenchmarkIngest(b *testing.B) {
	m := fullModel(b, 100_000)
	batch := testItems(100)
	b.ResetTimer()
	for b.Loop() {
		m.ingest(batch)
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "events/s")
}

// frameWatch records when a frame holding a word was written.
type frameWatch struct {
	mu   sync.Mutex
	want []byte
	seen chan time.Time
}

func (w *frameWatch) expect(word string) {
	w.mu.Lock()
	w.want = []byte(word)
	w.mu.Unlock()
}

func (w *frameWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.want != nil && bytes.Contains(p, w.want) {
		w.want = nil
		w.seen <- time.Now()
	}
	return len(p), nil
}

// floodResult is what one flood run measured.
type floodResult struct {
	events, presses int
	mean, worst     time.Duration
}

// TestKeysAnsweredDuringFlood: during a flood of 10,000 events a second,
// every key press still reaches the screen (within 10 s, so a stall fails;
// how fast is measured by BenchmarkKeyResponseDuringFlood).
func TestKeysAnsweredDuringFlood(t *testing.T) {
	// The flood and the presses go on until there were at least 10 presses
	// during 10,000 events, however slowly a busy machine lets them come.
	floodKeyResponse(t, 2, 10, 10_000)
}

// BenchmarkKeyResponseDuringFlood reports the time from a key written to
// the program's input to the frame showing its effect, during a flood of
// 10,000 events a second for AAEP_TUI_FLOOD_SECONDS (default 10) seconds.
// The target is under 100 ms.
func BenchmarkKeyResponseDuringFlood(b *testing.B) {
	seconds := 10
	if s, err := strconv.Atoi(os.Getenv("AAEP_TUI_FLOOD_SECONDS")); err == nil && s > 0 {
		seconds = s
	}
	var r floodResult
	for b.Loop() {
		r = floodKeyResponse(b, seconds, 0, 0)
	}
	b.ReportMetric(float64(r.mean.Microseconds())/1000, "mean-ms")
	b.ReportMetric(float64(r.worst.Microseconds())/1000, "worst-ms")
	b.ReportMetric(float64(r.presses), "keys")
	b.ReportMetric(float64(r.events), "events")
}

// floodKeyResponse floods a running program for seconds, and after that
// until at least minPresses keys were pressed during minEvents events, and
// presses the pause key every 100 ms, timing each press to the frame that
// shows it.
func floodKeyResponse(t testing.TB, seconds, minPresses, minEvents int) floodResult {
	in, keys := io.Pipe()
	out := &frameWatch{seen: make(chan time.Time, 1)}
	pr := Start(RunOptions{Options: Options{Theme: ThemeNone, Renderer: lipgloss.NewRenderer(io.Discard)}, In: in, Out: out})
	defer func() {
		keys.Close()
		if err := pr.Close(); err != nil {
			t.Error(err)
		}
	}()
	go func() { // the listener: the TUI's actions are not answered here
		for range pr.Actions() {
		}
	}()

	stop := make(chan struct{})
	flooded := make(chan int)
	var sent atomic.Int64
	go func() {
		n := 0
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				flooded <- n
				return
			case <-tk.C:
				for range 100 { // 100 every 10 ms: 10,000 a second
					n++
					_ = pr.Announce(announce.Announcement{At: time.Now(), Priority: announce.Normal, Kind: "output",
						Agent: "Flood", SessionID: "s-1", Text: "chunk " + strconv.Itoa(n)})
				}
				_ = pr.Flush()
				sent.Store(int64(n))
			}
		}
	}()

	var worst time.Duration
	var total time.Duration
	presses := 0
	end := time.Now().Add(time.Duration(seconds) * time.Second)
	paused := false
	for time.Now().Before(end) || presses < minPresses || sent.Load() < int64(minEvents) {
		time.Sleep(100 * time.Millisecond)
		word := "PAUSED"
		if paused {
			word = "FOLLOWING"
		}
		out.expect(word)
		start := time.Now()
		if _, err := keys.Write([]byte(" ")); err != nil {
			t.Fatal(err)
		}
		select {
		case at := <-out.seen:
			d := at.Sub(start)
			worst, total = max(worst, d), total+d
		case <-time.After(10 * time.Second):
			t.Fatalf("no frame showed %s within 10 s of the key", word)
		}
		paused = !paused
		presses++
	}
	close(stop)
	n := <-flooded
	return floodResult{events: n, presses: presses, mean: total / time.Duration(max(presses, 1)), worst: worst}
}
