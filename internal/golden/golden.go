// Package golden compares what a test got with a file of testdata, or
// rewrites the file when the test runs with -update.
package golden

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares got with the file at path (under testdata), or rewrites
// the file with -update.
func Check(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s changed (go test -run %s -update, then read the diff):\ngot:\n%s", path, t.Name(), got)
	}
}
