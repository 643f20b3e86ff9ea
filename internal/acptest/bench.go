package acptest

// Scripts for benchmarks: a flood of updates as fast as the agent can
// write them, and a stream at a steady rate with a permission request a
// second whose title carries the time it was sent.

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Benchmark scripts: FloodScript(n) sends n message chunks as fast as it
// can; PacedScript(d) streams Rate chunks a second for d, with a
// permission request a second whose tool call title ends in SentMark and
// the Unix time in nanoseconds it was sent.
const (
	Rate     = 2000
	SentMark = " sent at "
)

// FloodScript is the script of n message chunks, sent at once.
func FloodScript(n int) string { return "bench-flood:" + strconv.Itoa(n) }

// PacedScript is the script of a steady stream for d.
func PacedScript(d time.Duration) string { return "bench-paced:" + d.String() }

// bench plays a benchmark script; ok is false when script is none.
func (a *fake) bench(script string) (stop string, ok bool) {
	kind, arg, _ := strings.Cut(script, ":")
	switch kind {
	case "bench-flood":
		n, _ := strconv.Atoi(arg)
		for i := range n {
			a.say("Word " + strconv.Itoa(i) + ". ")
		}
		return "end_turn", true
	case "bench-paced":
		d, _ := time.ParseDuration(arg)
		a.paced(d)
		return "end_turn", true
	}
	return "", false
}

// paced streams Rate chunks a second for d, asking permission once a
// second without holding the stream back, and waits for every answer.
func (a *fake) paced(d time.Duration) {
	var asks sync.WaitGroup
	start := time.Now()
	every := time.Second / Rate
	for i := 0; ; i++ {
		due := start.Add(time.Duration(i) * every)
		if due.Sub(start) >= d {
			break
		}
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait) // the agent's own pace, not a test's wait
		}
		if i%Rate == 0 {
			n := i / Rate
			asks.Add(1)
			go func() {
				defer asks.Done()
				title := fmt.Sprintf("Bench request %d%s%d", n, SentMark, time.Now().UnixNano())
				id := "b" + strconv.Itoa(n)
				a.permission(map[string]any{"toolCallId": id, "title": title, "kind": "execute", "status": "pending",
					"rawInput": map[string]any{"command": "true"}}, usual)
			}()
		}
		a.say("Word " + strconv.Itoa(i) + ". ")
	}
	asks.Wait()
}
