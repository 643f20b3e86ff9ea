// play.go: aaep-replay play: a capture through the listener's engine and
// console (console.Player).

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/replay"
	"github.com/aaep-term/aaep-term/console"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/outputs"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/line"
)

const playUsage = `Usage: aaep-replay play [--speed X] [--idle-limit D] [--json | --tui] [--verbosity V]
                        [--no-time] [--config FILE] [--speech S] [--braille B]
                        [--interactive] [--paused] FILE

Announces a capture as aaep-listen would have announced it live: the same
subscriber client (subscription, terms, duplicates, order, lifecycle,
prompts) and the same words, one plain line per announcement (--json: one
JSON record each; --tui: the debug view of aaep-listen). The terms the
recorded producer honoured are enforced as they were live; frames received
together are one burst, so a prompt settled later in the burst is told as
settled, not offered. --speech and --braille add the same speech and
braille outputs as aaep-listen. Prompts are shown but never answered; what
the recorded subscriber sent is read out as such.

Pacing follows the recorded receive times (or, for plain JSON lines, the
events' timestamps): --speed 1 is real time, 2 twice as fast, 0.5 half as
fast, 0 as fast as possible. No pause is longer than --idle-limit.
Lines start with the recorded time (UTC), unless --no-time is given or the
settings file says "timestamps": false, as for aaep-listen.

When standard input is a terminal (or with --interactive, --paused or
--tui), playing is steered by typed commands, one per line (in the TUI,
through its command key, :):
  pause, resume, step         stop, go on, play one message
  seek 1m30s, seek -10s       go to a time, or move from here
  next critical, previous critical, next mark, previous mark, mark
  speed 2, faster, slower     change the speed while playing
  where, help, quit
In the TUI, keys do the same: P pause or resume, . step, ] and [ critical
events, } and { marks, M mark, + and - 10 seconds, > and < speed, W where.

Flags:
`

func runPlay(ctx context.Context, args []string, tio *term.IO) (int, error) {
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	speed := fs.Float64("speed", 1, "pace: 1 is as recorded, 2 twice as fast, 0 as fast as possible")
	idle := fs.Duration("idle-limit", 3*time.Second, "longest pause between two messages, whatever was recorded")
	asJSON := fs.Bool("json", false, "write one JSON record per announcement and diagnostic instead of lines")
	verbosity := fs.String("verbosity", "normal", "how much to say: terse, normal or detailed")
	interactive := fs.Bool("interactive", false, "read commands (pause, step, seek …) from standard input even when it is not a terminal")
	paused := fs.Bool("paused", false, "start paused, waiting for a command (implies --interactive)")
	useTUI := fs.Bool("tui", false, "play in the debug view of aaep-listen (needs a terminal)")
	times := addTimeFlags(fs)
	so := outputs.Options{ClientName: "user:aaep-replay:main", Getenv: os.Getenv}
	outputs.AddFlags(fs, &so)
	files, err := cliflag.ParseHelp(fs, args, playUsage, tio.Out)
	if err != nil {
		return exitUnreadable, err
	}
	if *speed < 0 {
		return exitUnreadable, cliflag.Usagef("--speed must not be negative")
	}
	if err := checkVerbosity(verbosity); err != nil {
		return exitUnreadable, err
	}
	if err := so.Check(); err != nil {
		return exitUnreadable, cliflag.Usagef("%v", err)
	}
	noTime, err := times.off(os.Getenv)
	if err != nil {
		return exitUnreadable, cliflag.Usagef("%v", err)
	}
	if *useTUI && *asJSON {
		return exitUnreadable, cliflag.Usagef("--tui and --json cannot be combined")
	}
	if *useTUI && (!tio.InTTY || !tio.OutTTY) {
		return exitUnreadable, cliflag.Usagef("--tui needs a terminal on standard input and output; leave it out for plain lines")
	}
	steer := *useTUI || *interactive || *paused || tio.InTTY
	name, path := "", ""
	if len(files) == 1 {
		name, path = files[0], files[0]
	}
	if steer && path == "-" {
		// Steered playing reads the capture again for each jump back:
		// standard input is kept in a file as it came (compressed or not).
		if path, err = spool(os.Stdin); err != nil {
			return exitUnreadable, err
		}
		defer os.Remove(path)
		files = []string{path}
	}
	rd, err := openOne(files, "play")
	if err != nil {
		return exitUnreadable, err
	}
	defer rd.Close()
	var (
		out  console.Output
		cmds <-chan string
	)
	switch {
	case *useTUI:
		prog := console.StartPlayTUI(tio, name)
		defer prog.Close()
		out, cmds = prog, console.PlayCommands(prog.Actions())
	case *asJSON:
		out = line.NewJSON(tio.Out)
	default:
		out = line.NewWriter(tio.Out, tio.ErrOut, line.WriterOptions{Location: time.UTC, NoTime: noTime, Replay: true})
	}
	p := console.NewPlayer(console.PlayConfig{Name: "aaep-replay", ErrOut: tio.ErrOut, Verbosity: *verbosity, Source: "file:" + name}, out)
	p.UseNames(rd)
	outs := outputs.Open(ctx, so, func(s string) { p.Say(time.Now(), s); p.Flush() })
	defer outs.Close()
	p.AddSinks(outs.List...)
	if !*useTUI && (*interactive || *paused || tio.InTTY) {
		cmds = replay.ReadCommands(tio.In)
	}
	if cmds == nil {
		if err := p.Play(ctx, rd, *speed, *idle); err != nil {
			return exitUnreadable, err
		}
		return exitOK, nil
	}
	o := replay.Options{Speed: *speed, Idle: *idle, Paused: *paused, Commands: cmds, Stay: *useTUI || tio.InTTY}
	if *useTUI {
		o.KeysHelp = console.PlayKeysHelp
	}
	st, err := replay.Load(p, rd, func() (*capture.Reader, error) { return capture.Open(path) }, o)
	if err != nil {
		return exitUnreadable, err
	}
	st.Run(ctx)
	return exitOK, nil
}

// spool copies src into a new private temporary file and returns its path.
func spool(src io.Reader) (string, error) {
	f, err := os.CreateTemp("", "aaep-replay-*.aaep")
	if err != nil {
		return "", fmt.Errorf("keep standard input to play it steered: %w", err)
	}
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("keep standard input to play it steered: %w", err)
	}
	return f.Name(), nil
}
