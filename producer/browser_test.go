package producer

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/browsertest"
)

// A browser subscriber using EventSource.onmessage against the legacy
// layout's /events receives every event of the run.
func TestLegacyEventsReachOnmessage(t *testing.T) {
	p := New(Options{Scenarios: scenarios(t, "happy"), Logf: t.Logf})
	browsertest.Onmessage(t, p, 11, func() { p.Close() }) // the 11 events of the happy scenario
}

// crossOriginPage subscribes, from a page of another origin, to the
// deployed layouts of two producers as the reference React subscriber does
// (EventSource, then fetch with a JSON body, which takes a preflight), and
// answers each one's confirmation; it tells /seen what happened.
const crossOriginPage = `<!doctype html><title>subscriber</title><script>
const tell = what => fetch('/seen', {method: 'POST', body: what});
for (const [name, base] of Object.entries({named: '%s', any: '%s'})) {
  const es = new EventSource(base + '/events');
  es.onmessage = async e => {
    const ev = JSON.parse(e.data);
    if (!ev.type.endsWith('agent.awaiting.confirmation')) return;
    const r = await fetch(base + '/messages', {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({type: 'confirmation.reply', reply_token: ev.reply_token, decision: 'accept', timestamp: new Date().toISOString()})});
    tell(name + ' ' + r.status);
  };
}
</script>`

// A browser page on another origin hears both producers' streams and
// sends the preflighted reply (issue 24 item 17): the producer that names
// its origin takes it; the one open to any origin refuses it unsigned, as
// any page could have sent it. Before, no event reached the page (no CORS
// headers) and the preflight was answered 405.
func TestCrossOriginBrowserSubscriber(t *testing.T) {
	t.Parallel()
	page := browsertest.NewPage(t)
	named, namedSrv := serve(t, Options{Scenarios: scenarios(t, "confirm"), PromptTimeout: time.Minute, AllowOrigins: []string{page.Origin}})
	anyOne, anySrv := serve(t, Options{Scenarios: scenarios(t, "confirm"), PromptTimeout: time.Minute, AllowOrigins: []string{AnyOrigin}})
	page.Open(fmt.Sprintf(crossOriginPage, namedSrv.URL, anySrv.URL))
	want := map[string]bool{"named 202": true, fmt.Sprintf("any %d", http.StatusForbidden): true}
	limit := time.After(time.Minute)
	for len(want) > 0 {
		select {
		case s := <-page.Seen:
			if !want[s] {
				t.Fatalf("the page said %q; still waiting for %v", s, want)
			}
			delete(want, s)
		case <-limit:
			t.Fatalf("the page did not say %v within a minute", want)
		}
	}
	if o := named.Outcomes(); len(o) != 1 || o[0].Resolution != Accepted {
		t.Errorf("the named origin's reply settled %v, want accepted", o)
	}
	if o := anyOne.Outcomes(); len(o) != 0 {
		t.Errorf("a reply any page could have sent settled %v", o)
	}
}
