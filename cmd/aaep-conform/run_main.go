package main

import (
	"context"
	"os"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
)

func main() {
	cliflag.Main(func(ctx context.Context, args []string) int {
		return run(ctx, args, systemDeps(term.System(false), os.Getenv))
	})
}
