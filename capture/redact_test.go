package capture

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	r := NewRedactor()
	for _, tt := range []struct {
		name, in string
		gone     []string // must not survive
		kept     []string // must survive
	}{
		{"reply token hashed", `{"type":"aaep:agent.awaiting.confirmation","reply_token":"rpl_4f8a2e7d9c1b6a3f"}`,
			[]string{"4f8a2e7d9c1b6a3f"}, []string{`"reply_token":"rpl_`}},
		{"args_summary pairs", `{"args_summary":"user: ada, password: hunter22, api_key=sk_live_abc123"}`,
			[]string{"hunter22", "sk_live_abc123"}, []string{"user: ada", "password: "}},
		{"request_text bearer", `{"request_text":"call it with Authorization: Bearer abcdef0123456789"}`,
			[]string{"abcdef0123456789"}, []string{"call it with"}},
		{"credential members", `{"headers":{"Authorization":"Bearer xyz12345678","token":"t0ps3cret"},"n":1}`,
			[]string{"xyz12345678", "t0ps3cret"}, []string{`"n":1`}},
		{"key formats anywhere", `{"summary_normal":"Key ghp_abcdefghijklmnopqrstuvwxyz and AKIAABCDEFGHIJKLMNOP and eyJhbGciOi.eyJzdWIiOi.sig"}`,
			[]string{"ghp_abcdefghijklmnop", "AKIAABCDEFGHIJKLMNOP", "eyJhbGciOi"}, []string{"Key "}},
		{"nested args", `{"args_summary":{"note":"pin: 1234"},"summary_normal":"pin: 1234"}`,
			[]string{`"note":"pin: 1234"`}, []string{`"summary_normal":"pin: 1234"`}},
		{"escapes kept valid", `{"args_summary":"password=a\"b\\c\u00e9 next"}`, []string{"a\\\"b"}, []string{" next"}},
		{"nothing secret", sampleEvent, nil, []string{sampleEvent}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := string(r.Redact([]byte(tt.in)))
			if len(out) != len(tt.in) {
				t.Errorf("length changed: %d to %d", len(tt.in), len(out))
			}
			if !json.Valid([]byte(out)) {
				t.Fatalf("invalid JSON: %s", out)
			}
			for _, g := range tt.gone {
				if strings.Contains(out, g) {
					t.Errorf("%q survived: %s", g, out)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(out, k) {
					t.Errorf("%q was lost: %s", k, out)
				}
			}
		})
	}
	// The same token hashes the same way, so replies still match prompts.
	a := r.Redact([]byte(`{"reply_token":"rpl_samesame1"}`))
	b := r.Redact([]byte(`{"type":"confirmation.reply","reply_token":"rpl_samesame1"}`))
	if !strings.Contains(string(b), string(a[len(`{"reply_token":`):len(a)-1])) {
		t.Errorf("hashes differ: %s, %s", a, b)
	}
}
