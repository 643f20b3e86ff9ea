package conform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A trigger is checked before a run: METHOD in capitals, an HTTP(S) URL,
// a JSON body when there is one.
func TestCheckTrigger(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, bad string }{
		{"", ""},
		{`POST https://agent.example/sessions {"user_message":"hi"}`, ""},
		{"GET http://127.0.0.1:8080/start", ""},
		{"post http://x/sessions", "METHOD in capitals"},
		{"POST file:///etc/passwd", "http:// or https://"},
		{"POST http:///nohost", "http:// or https://"},
		{"POST http://x/s {not json", "body must be JSON"},
	} {
		err := CheckTrigger(tt.in)
		if tt.bad == "" && err != nil || tt.bad != "" && (err == nil || !strings.Contains(err.Error(), tt.bad)) {
			t.Errorf("CheckTrigger(%q) = %v, want an error saying %q", tt.in, err, tt.bad)
		}
	}
}

// A report without a claim names the tests that stop it, and the level
// that holds.
func TestNotConforming(t *testing.T) {
	t.Parallel()
	rep := &Report{Level: 2, Results: []Result{
		{Test: Test{ID: "P1-a", Level: 1, Role: RoleProducer}, Status: Pass},
		{Test: Test{ID: "P2-b", Level: 2, Role: RoleProducer}, Status: Fail},
		{Test: Test{ID: "P2-c", Level: 2, Role: RoleProducer}, Status: Warn},
		{Test: Test{ID: "P2-d", Level: 2, Role: RoleProducer}, Status: Skip},
		{Test: Test{ID: "P3-e", Level: 3, Role: RoleProducer}, Status: Fail},
	}}
	if got, want := rep.NotConforming(), "Not AAEP Level 2 conformant (Level 1 holds): P2-b failed, P2-d was skipped."; got != want {
		t.Errorf("NotConforming = %q, want %q", got, want)
	}
	if got, want := (&Report{Level: 1}).NotConforming(), "Not AAEP Level 1 conformant: no test ran."; got != want {
		t.Errorf("NotConforming of no results = %q, want %q", got, want)
	}
}

// WriteFiles writes the reports and a receipt that verifies with the
// key's public half, saying each; Save never writes over a key.
func TestWriteFilesAndSave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k, err := GenerateKey(KeyEdDSA)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "key.pem")
	if err := k.Save(keyFile); err != nil {
		t.Fatal(err)
	}
	if err := k.Save(keyFile); err == nil {
		t.Error("Save wrote over an existing key")
	}
	pub, err := LoadPublicKey(keyFile + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 6, 30, 12, 0, 0, 0, time.UTC)
	rep := &Report{Level: 1, Role: RoleProducer, Suite: Suite{Name: "aaep-conform", Version: "v1.0.0", AAEPVersion: "1.0", Catalogue: strings.Repeat("0", 64)},
		Target: Target{Endpoint: "http://127.0.0.1:1/"}, Started: now, Finished: now,
		Results: []Result{{Test: Test{ID: "P1-a", Level: 1, Role: RoleProducer}, Status: Pass}}}
	f := Files{JSON: filepath.Join(dir, "r.json"), HTML: filepath.Join(dir, "r.html"), Receipt: filepath.Join(dir, "r.receipt"),
		Key: k, Now: now, ValidFor: 24 * time.Hour}
	var said []string
	if err := rep.WriteFiles(f, func(s string) { said = append(said, s) }); err != nil {
		t.Fatal(err)
	}
	if len(said) != 3 || !strings.HasPrefix(said[2], "Wrote the receipt to ") {
		t.Errorf("said %q", said)
	}
	data, err := ReadReceipt(f.Receipt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyReceipt(data, VerifyOptions{Keys: []*PublicKey{pub}, Now: now, Suite: rep.Suite}); err != nil {
		t.Errorf("the receipt written does not verify: %v", err)
	}
	for _, p := range []string{f.JSON, f.HTML} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}
