package main

// agentsfile.go: --agents FILE, the agents to listen to with settings of
// their own.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aaep-term/aaep-term/cmd/internal/agentsfile"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
)

// agentEntry is one entry of an --agents file, read and checked by
// agentspec but for its terms and policy.
type agentEntry = agentsfile.Entry

// readAgentsFile reads --agents FILE (agentsfile.ReadFile). The agents are
// added to o.Agents, after those on the command line, whose labels they
// may not repeat; settleAgentsFile gives them their terms and policies once
// the flags' are settled.
func (o *options) readAgentsFile(path string) error {
	entries, err := agentsfile.ReadFile(path)
	if err != nil {
		return cliflag.Usage(fmt.Errorf("--agents %w", err)) // "--agents a.json: entry 2 (code): …"
	}
	fail := func(format string, a ...any) error {
		return cliflag.Usage(fmt.Errorf("--agents %s: "+format, append([]any{protocol.Name(path)}, a...)...))
	}
	if len(o.Agents) == 1 && o.Agents[0].Endpoint == "-" {
		return fail("- (events on standard input) cannot be listened to with other endpoints: standard input takes your commands")
	}
	onLine := map[string]bool{}
	for _, a := range o.Agents {
		onLine[strings.ToLower(a.Label)] = a.Label != ""
	}
	for i := range entries {
		e := &entries[i]
		if e.Label != "" && onLine[strings.ToLower(e.Label)] {
			return fail("%s: %w", e.Name, agentsfile.LabelTwice(e.Label))
		}
		if o.entries == nil {
			o.entries = map[int]*agentEntry{}
		}
		o.entries[len(o.Agents)] = e
		o.Agents = append(o.Agents, agentSpec{Label: e.Label, Endpoint: e.Endpoint, Muted: e.Mute,
			Token: e.Token, Header: e.Header, FromFile: true,
			ACPMode: e.AgentMode, ACPTask: e.Task, ACPDir: e.Dir})
	}
	if o.Endpoint == "" {
		o.Endpoint = o.Agents[0].Endpoint
	}
	o.agentsFile = path
	return nil
}

// settleAgentsFile gives the agents of the --agents file the terms the
// flags give, changed by their entries, and their policies (a relative
// path is read relative to the file).
func (o *options) settleAgentsFile() error {
	for i := range o.Agents {
		e := o.entries[i]
		if e == nil {
			continue
		}
		if err := o.settleEntry(&o.Agents[i], e); err != nil {
			return cliflag.Usage(fmt.Errorf("--agents %s: %s: %w", o.agentsFile, e.Name, err))
		}
	}
	o.entries = nil
	return nil
}

// settleEntry gives s the terms and policy of its entry e.
func (o *options) settleEntry(s *agentSpec, e *agentEntry) error {
	terms := o.Terms
	set := func(name, value string) error {
		t, _, err := terms.Set(name, value)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		terms = t
		return nil
	}
	for _, kv := range []struct {
		name, value string
		given       bool
	}{
		{"verbosity", e.Verbosity, e.Verbosity != ""},
		{"include", strings.Join(e.Include, ","), e.Include != nil},
		{"exclude", strings.Join(e.Exclude, ","), e.Exclude != nil},
		{"rate", strconv.Itoa(e.Rate), e.Rate != 0},
		{"lang", strings.Join(e.Lang, ","), e.Lang != nil},
	} {
		if kv.given {
			if err := set(kv.name, kv.value); err != nil {
				return err
			}
		}
	}
	s.Terms, s.Verbosity = terms, terms.Verbosity
	if e.Policy != "" {
		pol, err := policy.Load(e.Policy) // made relative to the file by agentspec
		if err != nil {
			return fmt.Errorf("policy: %w", err)
		}
		s.Policy = pol
	}
	return nil
}
