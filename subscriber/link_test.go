package subscriber_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMinimalProgramLinksNoGRPC builds testdata/minimal, the smallest
// program against the package, and checks that it links no gRPC and no
// protobuf: only a program that sets transport.Options.GRPCBinding (to
// grpcbind.Binding) does. It logs the program's size (21.2 MB when every
// program linked gRPC; 12.7 MB without, Go 1.26 on linux/amd64).
func TestMinimalProgramLinksNoGRPC(t *testing.T) {
	t.Parallel()
	for _, p := range strings.Fields(goCmd(t, "list", "-deps", "./testdata/minimal")) {
		if strings.HasPrefix(p, "google.golang.org/grpc") || strings.HasPrefix(p, "google.golang.org/protobuf") {
			t.Errorf("the minimal program links %s", p)
		}
	}
	// The check can fail: the gRPC binding itself links gRPC.
	if deps := goCmd(t, "list", "-deps", "../transport/grpcbind"); !strings.Contains(deps, "google.golang.org/grpc\n") {
		t.Error("go list -deps names no google.golang.org/grpc for transport/grpcbind")
	}
	bin := filepath.Join(t.TempDir(), "minimal")
	goCmd(t, "build", "-o", bin, "./testdata/minimal")
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the minimal program is %.1f MB", float64(st.Size())/1e6)
}

// goCmd runs the go command with args and returns its standard output.
func goCmd(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Stderr = new(strings.Builder)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, cmd.Stderr)
	}
	return string(out)
}
