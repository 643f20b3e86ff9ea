package conform

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// endlessProducer serves, in the legacy layout, one session that never
// ends: a progress event after another until the subscriber goes.
func endlessProducer(t *testing.T) string {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.PathLegacyEvents {
			w.WriteHeader(http.StatusAccepted) // replies
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		flush := w.(http.Flusher)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			typ, extra := protocol.TypeProgressUpdated, `,"progress":{"current":1,"total":2}`
			if i == 0 {
				typ, extra = protocol.TypeSessionStarted, ""
			}
			fmt.Fprintf(w, `data: {"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":%q,"event_id":"evt_%d","session_id":"sess_1","sequence_number":%d,"timestamp":%q,"producer":{"agent_id":"endless"},"summary_normal":"Working."%s}`+"\n\n",
				typ, i, i, time.Now().UTC().Format(time.RFC3339Nano), extra)
			flush.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// A producer whose session never ends and never stops sending: the run
// ends within its configured bound (AfterPlan, short here) and says what it
// waited for. It ran until its 10-minute cap: the bound counted only once a
// session had ended.
func TestProducerRunBounded(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		level Level
		want  string
	}{
		{1, "once every planned step was done, for a session to end"},
		{2, "for a prompt to take the next planned step (a confirmation to accept"},
	} {
		t.Run(fmt.Sprint("level ", tt.level), func(t *testing.T) {
			t.Parallel()
			var topts transport.Options
			topts.SSE.Layout = transport.LayoutLegacy
			// The context is the test's last resort, not what it waits on.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			rep, err := TestProducer(ctx, ProducerOptions{Endpoint: endlessProducer(t), Level: tt.level, Fast: true,
				Transport: topts, Quiet: 50 * time.Millisecond, Hold: 10 * time.Millisecond, AfterPlan: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			said := false
			for _, r := range rep.Results {
				said = said || strings.Contains(r.Detail, tt.want)
			}
			if !said {
				for _, r := range rep.Results {
					t.Logf("%s %s: %s", r.Status, r.ID, r.Detail)
				}
				t.Errorf("no result says what the run waited for (%q)", tt.want)
			}
		})
	}
}
