package ttytest

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// Build links a program once per test process: tests asking for the same
// package, name and flags at once get the same binary, built once (a
// suite linked the same command for each of its tests); other flags give
// another binary.
func TestBuildOnce(t *testing.T) {
	const n = 4
	paths := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { paths[i] = Build(t, "./testdata/hello", "hello") })
	}
	wg.Wait()
	for i, p := range paths {
		if p != paths[0] {
			t.Errorf("build %d is %s, build 0 is %s: built more than once", i, p, paths[0])
		}
	}
	out, err := exec.Command(paths[0]).Output()
	if err != nil || strings.TrimSpace(string(out)) != "hello" {
		t.Errorf("the binary said %q, %v", out, err)
	}
	if p := Build(t, "./testdata/hello", "hello", "-ldflags=-s"); p == paths[0] {
		t.Errorf("built with other flags, the same binary %s", p)
	}
}
