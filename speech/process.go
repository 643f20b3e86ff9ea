// process.go holds Process, a backend that runs one program per utterance
// (espeak-ng, macOS say, Windows SAPI through PowerShell), and their commands.

package speech

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
)

// Command is one program run to speak one utterance. The text goes to its
// standard input, never onto its command line.
type Command struct {
	Path  string
	Args  []string
	Stdin string
}

// EspeakCommand speaks u with espeak-ng, in u.Lang's voice when one is given.
func EspeakCommand(u Utterance) Command {
	args := []string{"--stdin"}
	if lang := ssipLanguage(u.Lang); lang != "" {
		args = append([]string{"-v", strings.ToLower(lang)}, args...)
	}
	return Command{Path: "espeak-ng", Args: args, Stdin: u.Text}
}

// SayCommand speaks u with macOS say, which reads standard input when given no text.
// It cannot run on Linux; it is built and tested here for its command only.
func SayCommand(u Utterance) Command {
	return Command{Path: "say", Args: []string{"-f", "-"}, Stdin: u.Text}
}

// sapiScript reads the text from standard input and speaks it with
// System.Speech, preferring an installed voice whose culture matches the utterance language.
const sapiScript = `Add-Type -AssemblyName System.Speech; ` +
	`$s = New-Object System.Speech.Synthesis.SpeechSynthesizer; ` +
	`$l = '%LANG%'; if ($l -ne '') { $v = $s.GetInstalledVoices() | Where-Object { $_.VoiceInfo.Culture.Name -like ($l + '*') } | Select-Object -First 1; if ($v) { $s.SelectVoice($v.VoiceInfo.Name) } }; ` +
	`$s.Speak([Console]::In.ReadToEnd())`

// SAPICommand speaks u with the Windows SAPI voices through PowerShell.
// It cannot run on Linux; it is built and tested here for its command only.
func SAPICommand(u Utterance) Command {
	script := strings.ReplaceAll(sapiScript, "%LANG%", ssipLanguage(u.Lang))
	return Command{Path: "powershell.exe", Args: []string{"-NoProfile", "-NonInteractive", "-Command", script}, Stdin: u.Text}
}

// Process speaks by running one program per utterance, one at a time, in
// order. An Important utterance kills the program speaking anything less and
// goes ahead of everything queued.
type Process struct {
	name  string
	build func(Utterance) Command

	mu      sync.Mutex // guards the fields below
	queue   []Utterance
	current *exec.Cmd // the program speaking now, nil when idle
	curPrio Priority
	wake    chan struct{} // signalled when the queue grows
	closed  bool
	stopped chan struct{} // closed when the worker has ended
	stop    context.CancelFunc
}

// NewProcess starts a backend called name that runs build's command per utterance.
func NewProcess(name string, build func(Utterance) Command) *Process {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Process{name: name, build: build, wake: make(chan struct{}, 1), stopped: make(chan struct{}), stop: cancel}
	go p.run(ctx)
	return p
}

// Name implements Backend.
func (p *Process) Name() string { return p.name }

// Speak implements Backend.
func (p *Process) Speak(ctx context.Context, u Utterance) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("speech: " + p.name + ": closed")
	}
	if u.Priority == Important {
		// Ahead of everything that is not itself important, in arrival order.
		i := 0
		for i < len(p.queue) && p.queue[i].Priority == Important {
			i++
		}
		p.queue = append(p.queue[:i], append([]Utterance{u}, p.queue[i:]...)...)
		if p.current != nil && p.curPrio != Important {
			p.current.Process.Kill()
		}
	} else {
		p.queue = append(p.queue, u)
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return nil
}

// Cancel implements Backend.
func (p *Process) Cancel(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.queue = nil
	if p.current != nil {
		p.current.Process.Kill()
	}
	return nil
}

// Close implements Backend: it stops speaking and ends the worker.
func (p *Process) Close() error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		p.stop()
	}
	p.mu.Unlock()
	<-p.stopped
	return nil
}

func (p *Process) run(ctx context.Context) {
	defer close(p.stopped)
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-p.wake:
				continue
			}
		}
		u := p.queue[0]
		p.queue = p.queue[1:]
		c := p.build(u)
		cmd := exec.CommandContext(ctx, c.Path, c.Args...)
		cmd.Stdin = strings.NewReader(c.Stdin)
		if err := cmd.Start(); err != nil {
			p.mu.Unlock()
			continue
		}
		p.current, p.curPrio = cmd, u.Priority
		p.mu.Unlock()
		cmd.Wait()
		p.mu.Lock()
		p.current = nil
		p.mu.Unlock()
	}
}
