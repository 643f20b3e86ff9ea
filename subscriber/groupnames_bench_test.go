package subscriber_test

import (
	"fmt"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
)

// BenchmarkGroupJoin1000 is 1,000 agents joining a group one after
// another, each named by a line as it joins (its producer gives the name
// every agent of the demo gives), then a line of every member: what a
// listener started with 1,000 endpoints does. Each join changes the
// members, so every member's name is decided again. The members' clients
// are left out (a client that was never started): what is measured is
// the naming. cpu-ns/join is processor time, steadier than the wall on a
// shared machine.
func BenchmarkGroupJoin1000(b *testing.B) {
	const n = 1000
	start := func(subscriber.Config) *subscriber.Client { return &subscriber.Client{} }
	endpoints := make([]string, n)
	for i := range endpoints {
		endpoints[i] = fmt.Sprintf("http://127.0.0.1:%d", 20000+i)
	}
	var cfg subscriber.Config
	cfg.Schemas, _ = protocol.NewSchemas() // once: a listener compiles them once
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		g := subscriber.NewGroup(subscriber.GroupConfig{})
		ms := make([]*subscriber.Member, 0, n)
		for _, e := range endpoints {
			m := g.Join("", e, cfg, start)
			g.Display(m, "Research Assistant")
			ms = append(ms, m)
		}
		for _, m := range ms {
			if g.Display(m, "Research Assistant") == "" {
				b.Fatal("a member named by nothing")
			}
		}
		g.Stop()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/join")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N*n), "cpu-ns/join")
}
