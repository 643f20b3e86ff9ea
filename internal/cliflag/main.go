package cliflag

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/aaep-term/aaep-term/internal/gcpace"
)

// Main runs a command: run is given the command line's arguments and a
// context that is done on an interrupt (Ctrl-C) or SIGTERM, so the command
// can end cleanly (close its subscription, flush its file); the process
// then exits with the code run returns. The garbage collector lets the heap
// grow to gcpace.DefaultFloor before it runs, unless GOGC is set.
func Main(run func(ctx context.Context, args []string) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	pacer := gcpace.FromEnv(os.Getenv)
	code := run(ctx, os.Args[1:])
	pacer.Stop()
	stop()
	os.Exit(code)
}
