// Command aaep-bridge serves one ACP agent (Agent Client Protocol: Gemini
// CLI, Claude Code's adapter, Copilot CLI…) as an AAEP producer on every
// binding, so that any AAEP subscriber can follow it and answer its
// permission requests. The work is package acp's; this file wires flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/localagents"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
)

const usage = `Usage: aaep-bridge [flags] -- AGENT-COMMAND [ARGS…]

Starts one agent that speaks the Agent Client Protocol (ACP) and serves it
as an AAEP producer, to any number of subscribers at once:
  - HTTP, spec layout (POST /aaep/v1/subscriptions) and deployed layout
    (GET /events), and WebSocket at /aaep/v1/ws, on --addr
  - gRPC, on another free port of the same host
  - a Unix socket in the local agents' directory, named after the agent
    (NAME.sock), where aaep-listen --local finds it
One line says each endpoint. --stdio instead serves one subscriber in
JSON-RPC on standard input and output (for aaep-listen 'exec:aaep-bridge
--stdio -- gemini --acp'); its lines then go to standard error.

What the agent does becomes AAEP events, its permission requests
confirmations, its forms questions, as for aaep-listen 'acp:COMMAND'
(docs/agents.md). A permission request waits until a subscriber answers
it: nothing is accepted by itself, a subscriber that leaves leaves it
waiting, and one nobody answers within a day is rejected. A subscriber
gives the agent its task, or cancels it, with the agent-tasks extension
(agtask:task, agtask:cancel; docs/extensions.md): aaep-listen's tell and
cancel. The agent runs in this directory (or --dir), in its own process
group, and ends with aaep-bridge; aaep-bridge ends when the agent does.

Examples:
  aaep-bridge -- gemini --acp
  aaep-bridge --name review --task 'review the last commit' -- copilot --acp --stdio
  aaep-listen --local        (in another terminal: every agent served so)

Flags:
`

func main() {
	cliflag.Main(func(ctx context.Context, args []string) int { return run(ctx, args, term.System(false)) })
}

// run parses args and serves the agent; it returns the exit code.
func run(ctx context.Context, args []string, tio *term.IO) int {
	if buildinfo.Requested(args) {
		buildinfo.Read("aaep-bridge").Print(tio)
		return 0
	}
	fs := flag.NewFlagSet("aaep-bridge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts acp.Options
	where := acp.Where{LocalDir: localagents.Dir(os.Getenv)}
	fs.StringVar(&where.Addr, "addr", "127.0.0.1:0", "serve HTTP and WebSocket on `HOST:PORT` (port 0 picks a free one; gRPC takes another free port); empty: neither, nor gRPC")
	fs.StringVar(&where.LocalDir, "local-dir", where.LocalDir, "the `DIR`ectory of local agents' sockets, where aaep-listen --local looks; empty: no socket")
	stdio := fs.Bool("stdio", false, "serve one subscriber in JSON-RPC on standard input and output, and nothing else")
	fs.StringVar(&opts.Name, "name", "", "the agent's `NAME` in events and its socket's name (default: the command's base name)")
	fs.StringVar(&opts.Mode, "agent-mode", "", "the `MODE` to choose (default: the one named default, in which the agent asks before acting)")
	fs.StringVar(&opts.Task, "task", "", "the first task (`TEXT`), given once the first subscriber listens (with --stdio, once it has subscribed)")
	fs.StringVar(&opts.Dir, "dir", "", "the agent's working `DIR`ectory and its session's cwd (default: this one)")
	argv, err := cliflag.Parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		cliflag.PrintHelp(tio.Out, usage, fs)
		return 0
	case err == nil && len(argv) == 0:
		err = cliflag.Usagef("give the agent's command after --, such as: aaep-bridge -- gemini --acp")
	}
	if err != nil {
		return cliflag.Refuse(tio.ErrOut, "aaep-bridge", err)
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if *stdio {
			tio.Eprintf(format+"\n", args...)
		} else {
			tio.Printf(format+"\n", args...)
		}
	}
	if *stdio {
		where = acp.Where{}
	}
	s, err := acp.ServeAgent(ctx, argv, opts, where, func(format string, args ...any) {
		say("%s", protocol.Line(fmt.Sprintf(format, args...)))
	})
	if err != nil {
		tio.Eprintf("aaep-bridge: %s\n", protocol.Line(err.Error()))
		return cliflag.ExitFailed
	}
	defer s.Close()
	if *stdio {
		err = s.Producer.ServeStdio(ctx, tio.In, tio.Out)
	} else {
		for _, u := range s.URLs {
			say("Serving %s at %s", s.Name, u)
		}
		select {
		case <-ctx.Done():
		case <-s.Done():
			say("The agent has ended.")
		}
	}
	if err != nil {
		tio.Eprintf("aaep-bridge: %s\n", protocol.Line(err.Error()))
		return cliflag.ExitFailed
	}
	return 0
}
