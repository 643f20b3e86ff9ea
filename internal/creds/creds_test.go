package creds

import (
	"net/http"
	"net/url"
	"testing"
)

func TestApplyOnlyToTheOrigin(t *testing.T) {
	base, _ := url.Parse("https://Producer.example:8443/agent")
	s := New(base, "tok", http.Header{"x-secret": {"hush"}})
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://producer.example:8443/aaep/v1/events", true},
		{"wss://producer.example:8443/aaep/v1/ws", true},
		{"https://producer.example:8444/", false},     // another port
		{"http://producer.example:8443/", false},      // another scheme
		{"https://producer.example/", false},          // the default port, 443
		{"https://sub.producer.example:8443/", false}, // a subdomain
		{"https://producer.example.evil:8443/", false},
	} {
		u, _ := url.Parse(tc.url)
		h := http.Header{}
		s.Apply(h, u)
		got := h.Get("Authorization") == "Bearer tok" && h.Get("X-Secret") == "hush"
		if got != tc.want || !got && len(h) != 0 {
			t.Errorf("%s: headers %v, want credentials: %v", tc.url, h, tc.want)
		}
	}
	if u, _ := url.Parse("http://h/"); !New(u, "", nil).Empty() || New(u, "t", nil).Empty() {
		t.Error("Empty")
	}
	var none *Set
	none.Apply(http.Header{}, base) // a nil set sends nothing and does not panic
	if New(&url.URL{Path: "relative"}, "tok", nil).For(base) {
		t.Error("a set without an origin sends its credentials somewhere")
	}
}
