package cliflag

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Main runs a command: run is given the command line's arguments and a
// context that is done on an interrupt (Ctrl-C) or SIGTERM, so the command
// can end cleanly (close its subscription, flush its file); the process
// then exits with the code run returns.
func Main(run func(ctx context.Context, args []string) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
