package conform

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckReceiptFile reads the keys, the receipt and the report as
// aaep-conform verify does: a receipt from the key trusted holds, one from
// another key is refused, a report not its own is a mismatch, a key file
// that is no key is left out and said, a file that cannot be read is an
// error.
func TestCheckReceiptFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	k, other := mustKey(t, KeyES256), mustKey(t, KeyEdDSA)
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := k.Save(filepath.Join(keys, "ours.pem")); err != nil {
		t.Fatal(err)
	}
	if err := other.Save(filepath.Join(dir, "other.pem")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(keys, "ours.pem")) // the private half is not a trusted key
	write("keys/junk.jwk", "not a key")
	r := sampleReport(2, Pass, Pass, Warn, Pass)
	var b strings.Builder
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	report := write("report.json", b.String())
	changed := write("changed.json", strings.Replace(b.String(), `"status": "warn"`, `"status": "pass"`, 1))
	receipt := write("r.receipt", signedReport(t, k, r, nil))

	for _, tc := range []struct {
		name     string
		o        CheckOptions
		file     string
		valid    bool
		mismatch bool
		leftOut  int
		err      bool
	}{
		{name: "trusted key", o: CheckOptions{KeyFile: filepath.Join(keys, "ours.pem.pub"), Report: report}, valid: true},
		{name: "trusted keys", o: CheckOptions{KeysDir: keys}, valid: true, leftOut: 1},
		{name: "another key", o: CheckOptions{KeyFile: filepath.Join(dir, "other.pem.pub")}},
		{name: "not its report", o: CheckOptions{KeysDir: keys, Report: changed}, valid: true, mismatch: true, leftOut: 1},
		{name: "no receipt", o: CheckOptions{KeysDir: keys}, file: filepath.Join(dir, "none"), err: true, leftOut: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var left []error
			tc.o.Now, tc.o.Suite, tc.o.LeftOut = testNow, ourSuite(), func(err error) { left = append(left, err) }
			file := receipt
			if tc.file != "" {
				file = tc.file
			}
			out, err := CheckReceiptFile(file, tc.o)
			if tc.err {
				if err == nil || !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("err %v, want the file not found", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Valid != tc.valid || (out.ReportMismatch != "") != tc.mismatch || len(left) != tc.leftOut {
				t.Errorf("valid %v (reason %q), mismatch %q, left out %v", out.Valid, out.Reason, out.ReportMismatch, left)
			}
			if tc.valid && out.KeyID != k.KeyID() {
				t.Errorf("signed by %q, want %q", out.KeyID, k.KeyID())
			}
		})
	}
}
