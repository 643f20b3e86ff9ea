package producer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// answerer decides the reply to a prompt event; nil means no reply.
type answerer func(ev map[string]any) any

// acceptAll accepts confirmations and picks the last choice of questions.
func acceptAll(sub string) answerer {
	return func(ev map[string]any) any {
		token := ev["reply_token"].(string)
		if ev["type"] == protocol.TypeAwaitingConfirmation {
			return confirmation(token, "accept", sub)
		}
		choices := ev["choices"].([]any)
		m := map[string]any{
			"type": "clarification.reply", "reply_token": token,
			"response":  choices[len(choices)-1].(map[string]any)["value"],
			"timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		}
		if sub != "" {
			m["subscription_id"] = sub
		}
		return m
	}
}

// playAll reads s to its end, answering prompts with answer (posted to
// replies), and returns the events.
func playAll(t *testing.T, s *stream, replies string, answer answerer) []sseEvent {
	t.Helper()
	var got []sseEvent
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return got
			}
			if ev.comment != "" {
				continue
			}
			got = append(got, ev)
			m := ev.decoded(t)
			if typ := m["type"].(string); strings.HasPrefix(typ, "aaep:agent.awaiting.") && answer != nil {
				if r := answer(m); r != nil {
					if code, _, body := post(t, replies, r); code/100 != 2 {
						t.Errorf("reply to %s: %d %s", typ, code, body)
					}
				}
			}
		case <-timeout:
			t.Fatalf("the stream did not end; %d events so far", len(got))
		}
	}
}

// checkSessions checks the session rules of chapter 4 and appendix A on the
// events of a stream without chaos.
func checkSessions(t *testing.T, events []sseEvent) {
	t.Helper()
	type state struct {
		seq       float64
		ended     bool
		last      string
		toState   string
		positions map[string]float64
		complete  map[string]bool
	}
	sessions := map[string]*state{}
	for _, e := range events {
		m := e.decoded(t)
		typ := m["type"].(string)
		id := m["session_id"].(string)
		s := sessions[id]
		if s == nil {
			if typ != protocol.TypeSessionStarted {
				t.Errorf("session %s begins with %s", id, typ)
			}
			s = &state{seq: -1, toState: "idle", positions: map[string]float64{}, complete: map[string]bool{}}
			sessions[id] = s
		}
		if s.ended {
			t.Errorf("session %s: %s after its terminal event", id, typ)
		}
		if seq := m["sequence_number"].(float64); seq != s.seq+1 {
			t.Errorf("session %s: sequence_number %v after %v", id, seq, s.seq)
		} else {
			s.seq = seq
		}
		ts := m["timestamp"].(string)
		if ts < s.last {
			t.Errorf("session %s: timestamp %s before %s", id, ts, s.last)
		}
		s.last = ts
		switch typ {
		case protocol.TypeStateChanged:
			if from := m["from_state"]; from != s.toState {
				t.Errorf("session %s: state changes from %v but was %v", id, from, s.toState)
			}
			s.toState = m["to_state"].(string)
		case protocol.TypeOutputStreaming:
			out, _ := m["output_id"].(string)
			if s.complete[out] {
				t.Errorf("session %s: output %s goes on after complete", id, out)
			}
			if pos := m["position"].(float64); pos != s.positions[out] {
				t.Errorf("session %s: position %v, want %v", id, pos, s.positions[out])
			}
			s.positions[out] += float64(len([]rune(m["chunk"].(string))))
			s.complete[out] = m["complete"].(bool)
		}
		s.ended = isTerminal(typ)
	}
	for id, s := range sessions {
		if !s.ended {
			t.Errorf("session %s has no terminal event", id)
		}
		for out, c := range s.complete {
			if !c {
				t.Errorf("session %s: output %s never completes", id, out)
			}
		}
	}
}

// TestScenariosValidate plays every scenario through each branch and checks
// every event against the official schemas and the session rules.
func TestScenariosValidate(t *testing.T) {
	o := loadOfficial(t)
	all := scenarios(t)
	for _, tc := range []struct {
		name   string
		quirks bool
		answer func(sub string) answerer
	}{
		{"replies", false, acceptAll},
		{"timeouts", false, nil},
		{"quirks replies", true, acceptAll},
		{"quirks timeouts", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wait := 20 * time.Millisecond
			if tc.answer != nil {
				wait = 5 * time.Second // the replies settle the prompts
			}
			_, srv := serve(t, Options{Scenarios: all, EndWhenDone: true, Quirks: tc.quirks, PromptTimeout: wait})
			var s *stream
			var sub, replies string
			if tc.quirks {
				s, replies = open(t, srv.URL+protocol.PathLegacyEvents, ""), srv.URL+protocol.PathLegacyReplies
			} else {
				sub, s = subscribe(t, srv, nil)
				replies = srv.URL + protocol.PathReplies
			}
			var answer answerer
			if tc.answer != nil {
				answer = tc.answer(sub)
			}
			events := playAll(t, s, replies, answer)
			if len(events) < 40 {
				t.Fatalf("only %d events", len(events))
			}
			empty := 0
			for _, e := range events {
				err := o.validate(t, []byte(e.data))
				if err != nil && tc.quirks {
					// The one deliberate violation: an empty summary_normal.
					m := e.decoded(t)
					if m["summary_normal"] == "" {
						empty++
						delete(m, "summary_normal")
						b, _ := json.Marshal(m)
						err = o.validate(t, b)
					}
				}
				if err != nil {
					t.Errorf("%s\n%v", e.data, err)
				}
			}
			if tc.quirks && empty == 0 {
				t.Error("quirks mode sent no empty summary_normal")
			}
			if !tc.quirks {
				checkSessions(t, events)
			}
		})
	}
}

func TestEnvelope(t *testing.T) {
	fixed := time.Date(2026, 5, 24, 14, 22, 11, 342_500_000, time.FixedZone("X", 3600))
	_, srv := serve(t, Options{Scenarios: scenarios(t, "rtl", "error"), EndWhenDone: true, Now: func() time.Time { return fixed }})
	events := open(t, srv.URL+protocol.PathLegacyEvents, "").all(t)
	sessions := map[string]bool{}
	for _, e := range events {
		m := e.decoded(t)
		sessions[m["session_id"].(string)] = true
		if m["@context"] != protocol.ContextURL || m["aaep_version"] != "1.0.0" || m["verbosity"] != "normal" {
			t.Errorf("envelope: %s", e.data)
		}
		if m["timestamp"] != "2026-05-24T13:22:11.342Z" {
			t.Errorf("timestamp %v", m["timestamp"])
		}
		if !strings.HasPrefix(m["event_id"].(string), "evt_") || e.id != m["event_id"] {
			t.Errorf("event_id %v, SSE id %q", m["event_id"], e.id)
		}
		want := "normal"
		switch m["type"] {
		case protocol.TypeSessionErrored:
			want = "critical"
		case protocol.TypeStateChanged, protocol.TypeProgressUpdated:
			want = "background"
		}
		if m["urgency"] != want {
			t.Errorf("%s: urgency %v, want %s", m["type"], m["urgency"], want)
		}
		hints := m["localization_hints"].(map[string]any)
		rtl := m["producer"].(map[string]any)["agent_name"] == "المساعد التجريبي"
		if rtl != (hints["primary_language"] == "ar-SA" && hints["text_direction"] == "rtl") {
			t.Errorf("localization_hints %v for %v", hints, m["producer"])
		}
	}
	if len(sessions) != 2 {
		t.Errorf("%d sessions, want 2", len(sessions))
	}
}

func TestHandshakeAccepted(t *testing.T) {
	o := loadOfficial(t)
	_, srv := serve(t, Options{Scenarios: scenarios(t)})
	code, h, body := post(t, srv.URL+protocol.PathSubscriptions, map[string]any{
		"type": "subscription.request", "aaep_version": "1.2.0", "subscriber_id": "narrator",
		"capabilities": map[string]any{
			"max_events_per_second":        5000,
			"preferred_verbosity":          "normal",
			"languages":                    []string{"fr-FR", "en-GB", "ar"},
			"supports_confirmation_reply":  true,
			"supports_clarification_reply": false,
			"coalesce_boundaries":          []string{"sentence", "completion", "word"},
			"supported_conformance_levels": []int{1, 2, 3},
			"event_filters":                map[string]any{"exclude": []string{"aaep:agent.progress.updated"}},
			"haptic":                       map[string]any{"patterns": []string{"pulse"}},
		},
	})
	if code != http.StatusCreated {
		t.Fatalf("%d %s", code, body)
	}
	if err := o.validate(t, body); err != nil {
		t.Errorf("%s\n%v", body, err)
	}
	var acc struct {
		ID      string `json:"subscription_id"`
		Version string `json:"aaep_version"`
		Honored struct {
			Rate   int      `json:"max_events_per_second"`
			Verb   string   `json:"preferred_verbosity"`
			Langs  []string `json:"languages"`
			Conf   *bool    `json:"supports_confirmation_reply"`
			Clar   *bool    `json:"supports_clarification_reply"`
			Bounds []string `json:"coalesce_boundaries"`
			Levels []int    `json:"supported_conformance_levels"`
		} `json:"honored_capabilities"`
	}
	if err := json.Unmarshal(body, &acc); err != nil {
		t.Fatal(err)
	}
	hc := acc.Honored
	if hc.Rate != 1000 || hc.Verb != "normal" || !slices.Equal(hc.Langs, []string{"en-GB", "ar"}) ||
		hc.Conf == nil || !*hc.Conf || hc.Clar == nil || *hc.Clar ||
		!slices.Equal(hc.Bounds, []string{"sentence", "completion"}) || !slices.Equal(hc.Levels, []int{1, 2, 3}) {
		t.Errorf("honored %+v", hc)
	}
	if want := protocol.PathEvents + "?subscription_id=" + acc.ID; h.Get("Location") != want || acc.Version != protocol.Version {
		t.Errorf("Location %q, version %q", h.Get("Location"), acc.Version)
	}

	var manifest map[string]any
	if resp, err := http.Get(srv.URL + protocol.PathManifest); err != nil {
		t.Fatal(err)
	} else {
		err = json.NewDecoder(resp.Body).Decode(&manifest)
		resp.Body.Close()
		if err != nil || manifest["agent_id"] != "aaep-term-demo" || len(manifest["event_types_emitted"].([]any)) != 11 {
			t.Errorf("manifest %v: %v", manifest, err)
		}
	}
	if !strings.Contains(string(body), `"manifest_uri":"`+srv.URL+protocol.PathManifest+`"`) {
		t.Errorf("no manifest_uri in %s", body)
	}

	// A lower rate is honored as asked.
	code, _, body = post(t, srv.URL+protocol.PathSubscriptions, map[string]any{
		"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "braille",
		"capabilities": map[string]any{"max_events_per_second": 2},
	})
	if code != http.StatusCreated || !strings.Contains(string(body), `"max_events_per_second":2`) {
		t.Errorf("%d %s", code, body)
	}
}

func TestHandshakeRejected(t *testing.T) {
	o := loadOfficial(t)
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy")})
	req := func(change func(m map[string]any)) map[string]any {
		m := map[string]any{"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "x", "capabilities": map[string]any{}}
		change(m)
		return m
	}
	for _, tc := range []struct {
		name string
		body any
		code string
	}{
		{"not JSON", "{not json", "unknown"},
		{"array", "[]", "unknown"},
		{"wrong type", req(func(m map[string]any) { m["type"] = "subscription.renegotiate" }), "unknown"},
		{"version 2", req(func(m map[string]any) { m["aaep_version"] = "2.0.0" }), "version_unsupported"},
		{"no version", req(func(m map[string]any) { delete(m, "aaep_version") }), "version_unsupported"},
		{"no subscriber", req(func(m map[string]any) { delete(m, "subscriber_id") }), "unknown"},
		{"empty subscriber", req(func(m map[string]any) { m["subscriber_id"] = "" }), "unknown"},
		{"capabilities not object", req(func(m map[string]any) { m["capabilities"] = 3 }), "capabilities_incompatible"},
		{"bad rate", req(func(m map[string]any) { m["capabilities"] = map[string]any{"max_events_per_second": 0} }), "capabilities_incompatible"},
		{"signed manifest", req(func(m map[string]any) {
			m["capabilities"] = map[string]any{"accept_signed_manifests_only": true}
		}), "manifest_signature_required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := post(t, srv.URL+protocol.PathSubscriptions, tc.body)
			if code != http.StatusBadRequest {
				t.Errorf("status %d", code)
			}
			if err := o.validate(t, body); err != nil {
				t.Errorf("%s\n%v", body, err)
			}
			var rej struct {
				Code string `json:"reason_code"`
			}
			_ = json.Unmarshal(body, &rej)
			if rej.Code != tc.code {
				t.Errorf("reason_code %q, want %q (%s)", rej.Code, tc.code, body)
			}
		})
	}
}

func TestSpecFraming(t *testing.T) {
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), EndWhenDone: true})
	_, s := subscribe(t, srv, nil)
	if ct := s.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	for ev := range s.events {
		if ev.comment != "" {
			t.Errorf("comment %q on a spec stream", ev.comment)
			continue
		}
		if ev.event != "aaep.event" || ev.id != ev.decoded(t)["event_id"] {
			t.Errorf("event %q id %q for %s", ev.event, ev.id, ev.data)
		}
	}
}

func TestLegacyLayout(t *testing.T) {
	// Unnamed unless asked, so that EventSource.onmessage sees them
	// (TestLegacyEventsReachOnmessage); ids are kept for resuming.
	for query, name := range map[string]string{"": "", "?named=1": "aaep.event"} {
		_, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), EndWhenDone: true})
		events := open(t, srv.URL+protocol.PathLegacyEvents+query, "").all(t)
		if len(events) != 11 {
			t.Fatalf("%s: %d events, want 11", query, len(events))
		}
		for _, ev := range events {
			if ev.event != name || ev.id == "" {
				t.Errorf("%s: event %q id %q, want event %q", query, ev.event, ev.id, name)
			}
		}
	}
}

func TestUnknownSubscription(t *testing.T) {
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy")})
	for q, want := range map[string]int{"?subscription_id=sub_nope": 404, "": 400} {
		resp, err := http.Get(srv.URL + protocol.PathEvents + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %s, want %d", protocol.PathEvents+q, resp.Status, want)
		}
	}
}

func TestLastEventIDResume(t *testing.T) {
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy", "error")})
	sub, s := subscribe(t, srv, nil)
	first := s.until(t, protocol.TypeSessionErrored)
	s.resp.Body.Close()
	url := srv.URL + protocol.PathEvents + "?subscription_id=" + sub

	again := open(t, url, first[4].id)
	for _, want := range first[5:] {
		if got := again.next(t); got.id != want.id {
			t.Fatalf("after Last-Event-ID got %s, want %s", got.data, want.data)
		}
	}
	if !again.quiet(t, 50*time.Millisecond) {
		t.Error("more events after the resumed history")
	}
	// An unknown id resends everything kept.
	if got := open(t, url, "evt_unknown").next(t); got.id != first[0].id {
		t.Errorf("unknown Last-Event-ID: first event %s", got.data)
	}
}

func TestConfirmation(t *testing.T) {
	for _, decision := range []string{"accept", "reject"} {
		t.Run(decision, func(t *testing.T) {
			p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true})
			sub, s := subscribe(t, srv, nil)
			prompt := s.until(t, protocol.TypeAwaitingConfirmation)
			m := prompt[len(prompt)-1].decoded(t)
			if m["urgency"] != "critical" || m["risk_level"] != "high" || m["irreversible"] != true ||
				m["default_decision"] != "reject" || m["timeout_seconds"] != float64(120) {
				t.Errorf("confirmation %s", prompt[len(prompt)-1].data)
			}
			if !s.quiet(t, 150*time.Millisecond) {
				t.Fatal("the scenario went on before the reply")
			}
			token := m["reply_token"].(string)
			if code, _, body := post(t, srv.URL+protocol.PathReplies, confirmation(token, decision, sub)); code != http.StatusAccepted {
				t.Fatalf("reply: %d %s", code, body)
			}
			rest := s.all(t)
			var types []string
			for _, e := range rest {
				types = append(types, strings.TrimPrefix(e.typ(t), "aaep:agent."))
			}
			last := rest[len(rest)-1].decoded(t)
			invoked := slices.Contains(types, "tool.invoked")
			if decision == "accept" && (!invoked || !strings.Contains(last["summary_normal"].(string), "Transfer done")) ||
				decision == "reject" && (invoked || !strings.Contains(last["summary_normal"].(string), "Nothing was done")) {
				t.Errorf("after %s: %v, ending %q", decision, types, last["summary_normal"])
			}
			o := p.Outcomes()
			want := map[string]Resolution{"accept": Accepted, "reject": Rejected}[decision]
			if len(o) != 1 || o[0].Resolution != want || o[0].Decision != decision || o[0].SubscriptionID != sub || o[0].ReplyToken != token {
				t.Errorf("outcomes %+v", o)
			}
		})
	}
}

func TestConfirmationTimeout(t *testing.T) {
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true, PromptTimeout: 30 * time.Millisecond})
	_, s := subscribe(t, srv, nil)
	events := s.all(t)
	for _, e := range events {
		if e.typ(t) == protocol.TypeToolInvoked && strings.Contains(e.data, "transfer_money") {
			t.Error("the transfer ran without consent")
		}
	}
	o := p.Outcomes()
	if len(o) != 1 || o[0].Resolution != TimedOut || o[0].Decision != "reject" {
		t.Errorf("outcomes %+v", o)
	}
	if last := events[len(events)-1].data; !strings.Contains(last, "Nothing was done") {
		t.Errorf("last event %s", last)
	}
}

func TestClarification(t *testing.T) {
	for _, tc := range []struct {
		name     string
		response any
		want     string
		res      Resolution
	}{
		{"answer", "21:00", "9 in the evening", Answered},
		{"timeout", nil, "8 in the evening", TimedOut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wait := 50 * time.Millisecond
			if tc.response != nil {
				wait = 5 * time.Second
			}
			p, srv := serve(t, Options{Scenarios: scenarios(t, "clarify"), EndWhenDone: true, PromptTimeout: wait})
			sub, s := subscribe(t, srv, nil)
			ev := s.until(t, protocol.TypeAwaitingClarify)
			m := ev[len(ev)-1].decoded(t)
			if kinds := m["accepted_response_kinds"].([]any); len(kinds) != 1 || kinds[0] != "multiple_choice" || len(m["choices"].([]any)) != 3 {
				t.Errorf("clarification %s", ev[len(ev)-1].data)
			}
			if tc.response != nil {
				code, _, body := post(t, srv.URL+protocol.PathReplies, map[string]any{
					"type": "clarification.reply", "reply_token": m["reply_token"], "response": tc.response,
					"subscription_id": sub, "timestamp": time.Now().UTC().Format(time.RFC3339),
				})
				if code != http.StatusAccepted {
					t.Fatalf("%d %s", code, body)
				}
			}
			rest := s.all(t)
			last := rest[len(rest)-1].decoded(t)
			if got := last["summary_normal"]; got != "Table booked for "+tc.want+"." {
				t.Errorf("last summary %q", got)
			}
			if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != tc.res {
				t.Errorf("outcomes %+v", o)
			}
		})
	}
}

func TestReplyValidation(t *testing.T) {
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm", "clarify")})
	sub, s := subscribe(t, srv, nil)
	conf := s.until(t, protocol.TypeAwaitingConfirmation)
	token := conf[len(conf)-1].decoded(t)["reply_token"].(string)
	url := srv.URL + protocol.PathReplies
	with := func(change func(m map[string]any)) map[string]any {
		m := confirmation(token, "accept", sub)
		change(m)
		return m
	}
	for _, tc := range []struct {
		name string
		url  string
		body any
		code int
	}{
		{"bad JSON", url, "{", 400},
		{"not an object", url, `"accept"`, 400},
		{"unknown type", url, with(func(m map[string]any) { m["type"] = "confirmation.answer" }), 400},
		{"unknown member", url, with(func(m map[string]any) { m["note"] = "hi" }), 400},
		{"no token", url, with(func(m map[string]any) { delete(m, "reply_token") }), 400},
		{"unknown token", url, with(func(m map[string]any) { m["reply_token"] = "rpl_0000" }), 404},
		{"wrong decision", url, with(func(m map[string]any) { m["decision"] = "maybe" }), 400},
		{"no subscription_id", url, with(func(m map[string]any) { delete(m, "subscription_id") }), 400},
		{"unknown subscription", url, with(func(m map[string]any) { m["subscription_id"] = "sub_nope" }), 400},
		{"bad timestamp", url, with(func(m map[string]any) { m["timestamp"] = "yesterday" }), 400},
		{"after expiry", url, with(func(m map[string]any) {
			m["timestamp"] = time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		}), 400},
		{"clarification reply to a confirmation", url, with(func(m map[string]any) {
			m["type"] = "clarification.reply"
			delete(m, "decision")
			m["response"] = "yes"
		}), 400},
		{"legacy without subscription_id", srv.URL + protocol.PathLegacyReplies, with(func(m map[string]any) {
			delete(m, "subscription_id")
		}), 202},
		{"reused token", url, with(func(m map[string]any) {}), 409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, h, body := post(t, tc.url, tc.body)
			var answer map[string]string
			if err := json.Unmarshal(body, &answer); err != nil || h.Get("Content-Type") != "application/json" {
				t.Errorf("answer %q (%s): %v", body, h.Get("Content-Type"), err)
			}
			if code != tc.code || code >= 400 && answer["error"] == "" {
				t.Errorf("status %d %s, want %d", code, body, tc.code)
			}
		})
	}

	// The clarification that follows checks its answers too.
	clar := s.until(t, protocol.TypeAwaitingClarify)
	ctoken := clar[len(clar)-1].decoded(t)["reply_token"]
	for _, tc := range []struct {
		response any
		code     int
	}{{"22:00", 400}, {true, 400}, {19, 400}, {"", 400}, {"19:00", 202}} {
		code, _, body := post(t, url, map[string]any{
			"type": "clarification.reply", "reply_token": ctoken, "response": tc.response,
			"subscription_id": sub, "timestamp": time.Now().UTC().Format(time.RFC3339),
		})
		if code != tc.code {
			t.Errorf("response %#v: %d %s, want %d", tc.response, code, body, tc.code)
		}
	}
	s.until(t, protocol.TypeSessionCompleted)
	o := p.Outcomes()
	if len(o) != 2 || o[0].Resolution != Accepted || o[0].SubscriptionID != "" || o[1].Answer != "19:00" {
		t.Errorf("outcomes %+v", o)
	}
}

func TestEndWhenDone(t *testing.T) {
	p, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), EndWhenDone: true})
	sub, s := subscribe(t, srv, nil)
	if n := len(s.all(t)); n != 11 {
		t.Errorf("%d events", n)
	}
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed")
	}
	for _, path := range []string{protocol.PathEvents + "?subscription_id=" + sub, protocol.PathLegacyEvents} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("GET %s after the end: %s", path, resp.Status)
		}
	}
}

func TestRun(t *testing.T) {
	p := New(Options{Scenarios: scenarios(t, "happy", "confirm"), PromptTimeout: time.Millisecond})
	if err := p.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != TimedOut {
		t.Errorf("outcomes %+v", o)
	}

	// Ending the context stops a run that waits on a prompt.
	p = New(Options{Scenarios: scenarios(t, "confirm")})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := p.Run(ctx); err == nil {
		t.Error("Run returned nil after its context ended")
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != Abandoned {
		t.Errorf("outcomes %+v", o)
	}

	// Close before anything played.
	p = New(Options{Scenarios: scenarios(t, "happy")})
	p.Close()
	if err := p.Run(t.Context()); err != ErrClosed {
		t.Errorf("Run after Close: %v", err)
	}
}

func TestChaos(t *testing.T) {
	const runs = 5
	seen := 0
	for seed := range uint64(runs) {
		_, srv := serve(t, Options{Scenarios: scenarios(t, "happy", "error", "rtl"), EndWhenDone: true,
			Duplicate: 0.3, Shuffle: 4, Seed: seed})
		events := open(t, srv.URL+protocol.PathLegacyEvents, "").all(t)
		ids := map[string]int{}
		var order []string // distinct ids in order of arrival
		lastSeq := map[string]float64{}
		dups, disorder := 0, 0
		for _, e := range events {
			m := e.decoded(t)
			if ids[e.id]++; ids[e.id] > 1 {
				dups++
				continue
			}
			order = append(order, e.id)
			sess, seq := m["session_id"].(string), m["sequence_number"].(float64)
			if last, ok := lastSeq[sess]; ok && seq < last {
				disorder++
			}
			lastSeq[sess] = max(seq, lastSeq[sess])
		}
		if len(ids) != 11+5+10 {
			t.Errorf("seed %d: %d distinct events, want 26", seed, len(ids))
		}
		if dups > 0 && disorder > 0 {
			seen++
		}
		// A critical event is never held back: nothing produced after it
		// arrives before it.
		for i, e := range events {
			if e.typ(t) != protocol.TypeSessionErrored {
				continue
			}
			for _, before := range events[:i] {
				m := before.decoded(t)
				if m["session_id"] == e.decoded(t)["session_id"] && m["sequence_number"].(float64) > e.decoded(t)["sequence_number"].(float64) {
					t.Errorf("seed %d: %s arrived before the critical event", seed, before.data)
				}
			}
		}
	}
	if seen == 0 {
		t.Errorf("no run of %d had both duplicates and out-of-order events", runs)
	}
}

func TestChaosSeeded(t *testing.T) {
	order := func() []string {
		_, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), EndWhenDone: true, Duplicate: 0.5, Shuffle: 3, Seed: 42})
		var seqs []string
		for _, e := range open(t, srv.URL+protocol.PathLegacyEvents, "").all(t) {
			seqs = append(seqs, fmt.Sprint(e.decoded(t)["sequence_number"]))
		}
		return seqs
	}
	// Speed 0 with no prompt: the whole scenario is usually published before
	// the stream reads it, so the same seed gives the same order.
	a, b := order(), order()
	if !slices.Equal(a, b) {
		t.Logf("orders differ (timing): %v / %v", a, b)
	}
	if len(a) <= 11 {
		t.Errorf("no duplicates with Duplicate 0.5: %v", a)
	}
}

func TestRateLimitCriticalBypass(t *testing.T) {
	_, srv := serve(t, Options{Scenarios: scenarios(t, "error")})
	_, s := subscribe(t, srv, map[string]any{"max_events_per_second": 1})
	first, second := s.next(t), s.next(t)
	if first.typ(t) != protocol.TypeSessionStarted || second.typ(t) != protocol.TypeSessionErrored {
		t.Errorf("with a rate of 1 event a second: %s then %s", first.typ(t), second.typ(t))
	}
}

func TestFilters(t *testing.T) {
	_, srv := serve(t, Options{Scenarios: scenarios(t, "cancel", "error"), EndWhenDone: true})
	_, s := subscribe(t, srv, map[string]any{"event_filters": map[string]any{
		"include": []string{"aaep:agent.session.*"},
		"exclude": []string{"aaep:agent.session.errored"},
	}})
	var types []string
	for _, e := range s.all(t) {
		types = append(types, e.typ(t))
	}
	want := []string{protocol.TypeSessionStarted, protocol.TypeSessionCancelled, protocol.TypeSessionStarted, protocol.TypeSessionErrored}
	if !slices.Equal(types, want) {
		t.Errorf("got %v, want %v (critical events pass every filter)", types, want)
	}
}

func TestRenegotiateAndClose(t *testing.T) {
	_, srv := serve(t, Options{Scenarios: scenarios(t, "confirm")})
	sub, s := subscribe(t, srv, nil)
	code, _, body := post(t, srv.URL+protocol.PathReplies, map[string]any{
		"type": "subscription.renegotiate", "subscription_id": sub,
		"capabilities": map[string]any{"max_events_per_second": 3},
	})
	if code != http.StatusOK || !strings.Contains(string(body), `"max_events_per_second":3`) ||
		!strings.Contains(string(body), `"supports_confirmation_reply":true`) {
		t.Errorf("renegotiate: %d %s", code, body)
	}
	code, _, body = post(t, srv.URL+protocol.PathReplies, map[string]any{"type": "subscription.close", "subscription_id": sub})
	if code != http.StatusAccepted {
		t.Errorf("close: %d %s", code, body)
	}
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		t.Error("the stream stayed open after subscription.close")
	}
	resp, err := http.Get(srv.URL + protocol.PathEvents + "?subscription_id=" + sub)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("stream of a closed subscription: %s", resp.Status)
	}
}

func TestQuirks(t *testing.T) {
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm", "happy"), Quirks: true, Heartbeat: 20 * time.Millisecond})

	// No handshake.
	if code, _, _ := post(t, srv.URL+protocol.PathSubscriptions, map[string]any{
		"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "x", "capabilities": map[string]any{},
	}); code != http.StatusNotFound {
		t.Errorf("subscriptions: %d", code)
	}

	s := open(t, srv.URL+protocol.PathLegacyEvents, "")
	if first := <-s.events; first.comment != " connected" {
		t.Errorf("first line %+v", first)
	}
	var types, data []string
	var token string
	heartbeat := false
	// The two scenarios interleave: happy plays to its end while the
	// confirmation waits.
	for token == "" || !slices.Contains(types, protocol.TypeSessionCompleted) {
		ev, ok := <-s.events
		if !ok {
			t.Fatal("the stream ended")
		}
		if ev.comment != "" {
			heartbeat = heartbeat || ev.comment == " heartbeat"
			continue
		}
		if ev.event != "" || ev.id != "" {
			t.Errorf("quirks framing has event %q id %q", ev.event, ev.id)
		}
		m := ev.decoded(t)
		types, data = append(types, m["type"].(string)), append(data, ev.data)
		if m["type"] == protocol.TypeAwaitingConfirmation {
			token = m["reply_token"].(string)
		}
	}
	// The event before the confirmation in its session is the transfer's
	// tool.invoked.
	conf := slices.Index(types, protocol.TypeAwaitingConfirmation)
	sess := func(i int) string { return strings.Split(data[i], `"session_id":"`)[1][:37] }
	prev := conf - 1
	for prev > 0 && sess(prev) != sess(conf) {
		prev--
	}
	if prev < 0 || types[prev] != protocol.TypeToolInvoked || !strings.Contains(data[prev], "transfer_money") {
		t.Errorf("the transfer's tool.invoked does not come before the confirmation: %v", types)
	}
	if done := slices.Index(types, protocol.TypeSessionCompleted); strings.Contains(data[done], "Transfer done") ||
		slices.Index(types, protocol.TypeSessionStarted) != 0 || !strings.Contains(data[0], "electricity") {
		t.Errorf("the sessions do not interleave in order: %v", types)
	}
	for !heartbeat {
		select {
		case ev := <-s.events:
			heartbeat = ev.comment == " heartbeat"
		case <-time.After(5 * time.Second):
			t.Fatal("no heartbeat")
		}
	}

	// Replies: {"status":"received"} for any token; a valid one settles.
	for _, tok := range []string{"rpl_unknown", token} {
		code, _, body := post(t, srv.URL+protocol.PathLegacyReplies, confirmation(tok, "accept", ""))
		if code != http.StatusOK || strings.TrimSpace(string(body)) != `{"status":"received"}` {
			t.Errorf("reply %s: %d %s", tok, code, body)
		}
	}
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != Accepted {
		t.Errorf("outcomes %+v", o)
	}

	// A new subscriber first gets the old events, the answered
	// confirmation included.
	late := open(t, srv.URL+protocol.PathLegacyEvents, "")
	if ev := late.next(t); ev.typ(t) != protocol.TypeSessionStarted {
		t.Errorf("late subscriber starts with %s", ev.data)
	}
	late.until(t, protocol.TypeAwaitingConfirmation)
}

func TestLoadScenarios(t *testing.T) {
	all := scenarios(t)
	var names []string
	for _, s := range all {
		names = append(names, s.Name)
	}
	if want := []string{"happy", "confirm", "clarify", "error", "cancel", "rtl"}; !slices.Equal(names, want) {
		t.Errorf("scenarios %v, want %v", names, want)
	}
	if _, err := SelectScenarios(all, []string{"happy", "nope"}); err == nil || !strings.Contains(err.Error(), "rtl") {
		t.Errorf("unknown name: %v", err)
	}
}

func TestParseScenarioErrors(t *testing.T) {
	const head = `{"name":"x","agent":{"agent_id":"a"},"steps":[{"event":{"type":"agent.session.started","summary_normal":"s"}},`
	const endEvent = `{"event":{"type":"agent.session.completed","summary_normal":"e"}}`
	const end = endEvent + `]}`
	conf := func(extra string) string {
		return head + `{"event":{"type":"agent.awaiting.confirmation","action":"a","consequence":"c","timeout_seconds":5,"default_decision":"reject"` + extra + `}},` + end
	}
	for _, tc := range []struct{ name, data, want string }{
		{"not JSON", `{`, "scenario"},
		{"unknown field", `{"name":"x","colour":1}`, "colour"},
		{"bad name", `{"name":"Big Name","agent":{"agent_id":"a"},"steps":[]}`, "name"},
		{"no agent", `{"name":"x","steps":[]}`, "agent_id"},
		{"no steps", `{"name":"x","agent":{"agent_id":"a"},"steps":[]}`, "no steps"},
		{"bad direction", `{"name":"x","agent":{"agent_id":"a"},"direction":"up","steps":[]}`, "direction"},
		{"first not started", `{"name":"x","agent":{"agent_id":"a"},"steps":[` + end, "first event"},
		{"unknown type", head + `{"event":{"type":"agent.purple.flamingo"}},` + end, "not a core"},
		{"envelope field", head + `{"event":{"type":"agent.state.changed","from_state":"idle","to_state":"x","urgency":"critical"}},` + end, "urgency"},
		{"reply token", conf(`,"reply_token":"rpl_1"`), "reply_token"},
		{"no terminal", head[:len(head)-1] + `]}`, "terminal"},
		{"after terminal", head + endEvent + `,` + end, "follow"},
		{"field twice", conf(`,"default_decision":"accept"`), "appears twice"},
		{"no timeout", head + `{"event":{"type":"agent.awaiting.clarification","question":"q"}},` + end, "timeout_seconds"},
		{"branch on a non-prompt", head + `{"event":{"type":"agent.state.changed","from_state":"idle","to_state":"x"},"on_accept":[]},` + end, "confirmations only"},
		{"branch ends early", head + `{"event":{"type":"agent.awaiting.confirmation","action":"a","consequence":"c","timeout_seconds":5,"default_decision":"reject"},"on_reject":[` + endEvent + `]},` + end, "on_reject"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	irreversible := head + `{"event":{"type":"agent.awaiting.confirmation","action":"a","consequence":"c","timeout_seconds":5,"irreversible":true,"risk_level":"high","default_decision":"accept"}},` + end
	if _, err := ParseScenario([]byte(irreversible)); err == nil || !strings.Contains(err.Error(), `"reject"`) {
		t.Errorf("irreversible high-risk default accept: %v", err)
	}
}

func TestSpeed(t *testing.T) {
	// happy waits 4.3 s in all; at Speed 0.02 that is 86 ms.
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), EndWhenDone: true, Speed: 0.02})
	start := time.Now()
	if n := len(open(t, srv.URL+protocol.PathLegacyEvents, "").all(t)); n != 11 {
		t.Errorf("%d events", n)
	}
	if d := time.Since(start); d < 86*time.Millisecond {
		t.Errorf("played in %v, want at least 86 ms", d)
	}
}

func TestPayloadJSON(t *testing.T) {
	var p Payload
	in := `{"chunk": "a {answer}", "type": "https://aaep-protocol.org/types/agent.output.streaming", "position": 3,
		"extra": {"b": [1, 2]}}`
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"aaep:agent.output.streaming","chunk":"a {answer}","position":3,"extra":{"b":[1,2]}}`
	if string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
	for _, bad := range []string{`[]`, `{"type": 3}`, `{"a": 1, "a": 2}`} {
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestSubscriptionLimit(t *testing.T) {
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy")})
	req := map[string]any{"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "many", "capabilities": map[string]any{}}
	first, _ := subscribe(t, srv, nil) // has a stream open: never evicted
	var oldest string
	for i := range maxSubscriptions {
		code, _, body := post(t, srv.URL+protocol.PathSubscriptions, req)
		if code != http.StatusCreated {
			t.Fatalf("subscription %d: %d %s", i, code, body)
		}
		if i == 0 {
			var acc struct {
				ID string `json:"subscription_id"`
			}
			_ = json.Unmarshal(body, &acc)
			oldest = acc.ID
		}
	}
	for id, want := range map[string]int{oldest: http.StatusNotFound, first: http.StatusOK} {
		resp, err := http.Get(srv.URL + protocol.PathEvents + "?subscription_id=" + id)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("stream of %s: %s, want %d", id, resp.Status, want)
		}
	}
}
