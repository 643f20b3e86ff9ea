package subscriber

import (
	"context"
	"fmt"
	"testing"

	"github.com/aaep-term/aaep-term/transport"
)

// BenchmarkGroupFanIn is the way from members' queues to the stream
// alone: each of N members queues a burst of one update (one member in
// ten a critical one) and the reader takes them all with Next, telling
// each batch Done, as the listener's loop does. It reports the time per
// update: the group's own cost per event at the fan-in, beside the clients'
// work, which it leaves out; and how many ordinary updates were told, on
// average, before the burst's last critical one (ahead/burst).
func BenchmarkGroupFanIn(b *testing.B) {
	for _, n := range []int{50, 200} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			g := NewGroup(GroupConfig{Expected: n})
			defer g.Stop()
			ms := make([]*Member, n)
			for i := range ms {
				ms[i] = g.Join(fmt.Sprint("m", i), "", Config{}, func(cfg Config) *Client { return newClient("", transport.Endpoint{}, nil, cfg) })
				g.Feed(ms[i])
			}
			ordinary := normal(1, "x")[0]
			ctx := context.Background()
			burst, ahead := 0, 0
			for b.Loop() {
				for i, m := range ms {
					u := ordinary
					if (i+burst)%10 == 9 {
						u = alarm
					}
					m.c.emit(&u)
				}
				alarms, ordinary := n/10, 0
				for taken := 0; taken < n; {
					bt, err := g.Next(ctx)
					if err != nil {
						b.Fatal(err)
					}
					for _, u := range bt.Updates {
						if !u.Critical() {
							ordinary++
							continue
						}
						alarms--
						if alarms == 0 {
							ahead += ordinary
						}
					}
					taken += len(bt.Updates)
					g.Done(bt)
				}
				burst++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/update")
			b.ReportMetric(float64(ahead)/float64(b.N), "ahead/burst")
		})
	}
}
