package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/session"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The term flags reach the subscription request as the spec spells them.
func TestTermFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want session.Terms
		in   []string // in the request
	}{
		{[]string{"--demo"}, session.Terms{Verbosity: "normal", Coalesce: []string{"sentence", "paragraph", "completion"}},
			[]string{`"coalesce_boundaries":["sentence","paragraph","completion"]`, `"supported_conformance_levels":[1,2,3]`}},
		{[]string{"--demo", "--rate", "5", "--lang", "yo, en", "--coalesce", "completion", "--include", "agent.tool.*,agent.session.*",
			"--exclude", "aaep:agent.progress.updated", "--cognitive-load", "normal", "--pace-wpm", "180", "--strict", "--verbosity", "terse"},
			session.Terms{Rate: 5, Verbosity: "terse", Languages: []string{"yo", "en"}, Coalesce: []string{"completion"},
				Include: []string{"aaep:agent.tool.*", "aaep:agent.session.*"}, Exclude: []string{"aaep:agent.progress.updated"},
				CognitiveLoad: "medium", PaceWPM: 180, Strict: true},
			[]string{`"max_events_per_second":5`, `"languages":["yo","en"]`, `"include":["aaep:agent.tool.*","aaep:agent.session.*"]`,
				`"cognitive_load":"medium"`, `"pace_wpm":180`, `"preferred_verbosity":"terse"`}},
		{[]string{"--demo", "--cognitive-load", "LOW"}, session.Terms{Verbosity: "normal", Coalesce: []string{"sentence", "paragraph", "completion"}, CognitiveLoad: "low"},
			[]string{`"cognitive_load":"low"`}},
	}
	for _, tt := range tests {
		tio, _, _, _ := term.Test()
		o, err := parseFlags(tt.args, tio, env(map[string]string{"HOME": "/home/ada", "USER": "ada"}))
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		got := o.Terms
		got.CanConfirm, got.CanClarify = false, false
		if !termsEqual(got, tt.want) {
			t.Errorf("%v: terms %+v, want %+v", tt.args, got, tt.want)
		}
		b, _ := json.Marshal(o.clientConfig("").Request())
		req := string(b)
		for _, w := range tt.in {
			if !strings.Contains(req, w) {
				t.Errorf("%v: request lacks %s: %s", tt.args, w, req)
			}
		}
		var m struct {
			ID string `json:"subscriber_id"`
		}
		if json.Unmarshal([]byte(req), &m) != nil || m.ID != session.SubscriberID("/home/ada/.config/aaep-term", "ada") {
			t.Errorf("%v: subscriber_id %q is not the one for this user and config", tt.args, m.ID)
		}
	}
}

func TestTermFlagsRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--rate", "-2"}, {"--lang", "en,1x"}, {"--coalesce", "line"}, {"--include", "agent.*.started"},
		{"--cognitive-load", "extreme"}, {"--pace-wpm", "20"}, {"--verbosity", "loud"},
	} {
		tio, _, _, _ := term.Test()
		_, err := parseFlags(append(args, "--demo"), tio, env(nil))
		if err == nil {
			t.Errorf("%v accepted", args)
			continue
		}
		if flag := strings.TrimPrefix(args[0], "--"); !strings.Contains(err.Error(), flag) {
			t.Errorf("%v: error %q does not name --%s", args, err, flag)
		}
	}
}

func termsEqual(a, b session.Terms) bool {
	return a.Rate == b.Rate && a.Verbosity == b.Verbosity && slices.Equal(a.Languages, b.Languages) &&
		slices.Equal(a.Coalesce, b.Coalesce) && slices.Equal(a.Include, b.Include) && slices.Equal(a.Exclude, b.Exclude) &&
		a.CognitiveLoad == b.CognitiveLoad && a.PaceWPM == b.PaceWPM && a.Strict == b.Strict
}

// The subscription says it can reply whenever something can send a reply:
// typed input (with --json too, and without a terminal), a policy or
// --auto-reply; only an endpoint with no back channel cannot.
func TestHonestCapabilities(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--demo"}, true},
		{[]string{"--demo", "--json"}, true},
		{[]string{"--json", "http://127.0.0.1:1"}, true},
		{[]string{"--json", "--auto-reply", "reject", "ws://127.0.0.1:1"}, true},
		{[]string{"-"}, false},
	} {
		tio, _, _, _ := term.Test() // no terminal
		o, err := parseFlags(tc.args, tio, env(nil))
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		b, _ := json.Marshal(o.clientConfig("").Request())
		want := fmt.Sprintf(`"supports_confirmation_reply":%v`, tc.want)
		if o.Terms.CanConfirm != tc.want || o.Terms.CanClarify != tc.want || !strings.Contains(string(b), want) {
			t.Errorf("%v: can confirm %v, clarify %v, request %s; want %v", tc.args, o.Terms.CanConfirm, o.Terms.CanClarify, b, tc.want)
		}
	}
}
