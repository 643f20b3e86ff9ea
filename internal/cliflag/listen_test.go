package cliflag

import (
	"strings"
	"testing"
)

func TestListen(t *testing.T) {
	t.Parallel()
	held, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, c := range []struct {
		addr      string
		code      int
		wantInErr string
	}{
		{"nonsense", ExitUsage, "want HOST:PORT"},
		{"127.0.0.1", ExitUsage, "want HOST:PORT"},
		{held.Addr().String(), ExitFailed, "--addr 127.0.0.1:0 picks a free one"},
	} {
		ln, err := Listen(c.addr)
		if err == nil {
			ln.Close()
			t.Errorf("Listen(%q) listened", c.addr)
			continue
		}
		if got := ExitCode(err); got != c.code {
			t.Errorf("Listen(%q): exit %d, want %d (%v)", c.addr, got, c.code, err)
		}
		if !strings.Contains(err.Error(), c.wantInErr) {
			t.Errorf("Listen(%q): %q lacks %q", c.addr, err, c.wantInErr)
		}
	}
}
