package main

// agentsfile.go: --agents FILE, the agents to listen to with settings of
// their own.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// agentEntry is one entry of an --agents file. Every key but endpoint may
// be left out: the command line's flags then apply.
type agentEntry struct {
	Endpoint  string            `json:"endpoint"`
	Label     string            `json:"label"`
	Token     string            `json:"token"`
	Headers   map[string]string `json:"headers"`
	Verbosity string            `json:"verbosity"`
	Include   []string          `json:"include"`
	Exclude   []string          `json:"exclude"`
	Rate      int               `json:"rate"`
	Lang      []string          `json:"lang"`
	Policy    string            `json:"policy"`
	Mute      bool              `json:"mute"`
}

// readAgentsFile reads --agents FILE: a JSON array of entries, or an
// object {"agents": [...]}. An unknown key is an error naming it and its
// entry. The agents are added to o.Agents, after those on the command
// line; settleAgentsFile gives them their terms and policies once the
// flags' are settled.
func (o *options) readAgentsFile(path string) error {
	data, err := readAgentsData(path)
	if err != nil {
		return cliflag.Usage(fmt.Errorf("--agents: %w", err))
	}
	fail := func(format string, a ...any) error {
		return cliflag.Usage(fmt.Errorf("--agents %s: "+format, append([]any{path}, a...)...))
	}
	var raw []json.RawMessage
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return fail("%v", err)
		}
		for k := range top {
			if k != "agents" {
				return fail("unknown key %q; the file is a list of agents, or {\"agents\": [...]}", protocol.Name(k))
			}
		}
		data = top["agents"]
	}
	if err := json.Unmarshal(data, &raw); err != nil || len(raw) == 0 {
		return fail("not a list of agents (JSON objects with at least an endpoint)")
	}
	seen := map[string]bool{}
	if len(o.Agents) == 1 && o.Agents[0].Endpoint == "-" {
		return fail("- (events on standard input) cannot be listened to with other endpoints: standard input takes your commands")
	}
	for _, a := range o.Agents {
		seen[strings.ToLower(a.Label)] = a.Label != ""
	}
	for i, r := range raw {
		name := fmt.Sprintf("entry %d", i+1)
		var e agentEntry
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return fail("%s: %s", name, entryError(err))
		}
		if e.Label != "" {
			name += " (" + protocol.Name(e.Label) + ")"
		}
		spec, err := checkEntry(e)
		if err != nil {
			return fail("%s: %v", name, err)
		}
		spec.entry, spec.entryName, spec.dir = &e, name, filepath.Dir(path)
		if spec.Label != "" {
			if seen[strings.ToLower(spec.Label)] {
				return fail("%s: the label %s is given twice: each agent needs its own", name, spec.Label)
			}
			seen[strings.ToLower(spec.Label)] = true
		}
		o.Agents = append(o.Agents, spec)
	}
	if o.Endpoint == "" {
		o.Endpoint = o.Agents[0].Endpoint
	}
	o.agentsFile = path
	return nil
}

// maxAgentsFile bounds an --agents file: thousands of entries, far more
// than any run listens to.
const maxAgentsFile = 1 << 20

// readAgentsData reads the file at path, refusing one larger than
// maxAgentsFile without reading more of it (a device such as /dev/zero
// never ends).
func readAgentsData(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAgentsFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", protocol.Name(path), err)
	}
	if len(data) > maxAgentsFile {
		return nil, fmt.Errorf("%s is larger than %d bytes; it is not a list of agents", protocol.Name(path), maxAgentsFile)
	}
	return data, nil
}

// settleAgentsFile gives the agents of the --agents file the terms the
// flags give, changed by their entries, and their policies (a relative
// path is read relative to the file).
func (o *options) settleAgentsFile() error {
	for i := range o.Agents {
		s := &o.Agents[i]
		if s.entry == nil {
			continue
		}
		if err := o.settleEntry(s); err != nil {
			return cliflag.Usage(fmt.Errorf("--agents %s: %s: %w", o.agentsFile, s.entryName, err))
		}
		s.entry = nil
	}
	return nil
}

// entryError puts a decoding error in words: an unknown key is named.
func entryError(err error) string {
	s := err.Error()
	if k, ok := strings.CutPrefix(s, "json: unknown field "); ok {
		return fmt.Sprintf("unknown key %s; keys are endpoint, label, token, headers, verbosity, include, exclude, rate, lang, policy and mute", protocol.Name(k))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s must be a %s", protocol.Name(te.Field), te.Type)
	}
	return protocol.Name(strings.TrimPrefix(s, "json: "))
}

// checkEntry is the agent an entry describes, checked but for its terms
// and policy.
func checkEntry(e agentEntry) (agentSpec, error) {
	if e.Endpoint == "" {
		return agentSpec{}, fmt.Errorf("no endpoint")
	}
	if err := transport.CheckEndpoint(e.Endpoint); err != nil {
		return agentSpec{}, err
	}
	if e.Endpoint == "-" {
		return agentSpec{}, fmt.Errorf("- (events on standard input) cannot be an agent of a file: standard input takes your commands")
	}
	spec := agentSpec{Label: e.Label, Endpoint: e.Endpoint, Muted: e.Mute, Token: e.Token, FromFile: true}
	if e.Label != "" {
		if err := agentspec.CheckLabel(e.Label); err != nil {
			return agentSpec{}, err
		}
	}
	if len(e.Headers) > 0 {
		spec.Header = http.Header{}
		for k, v := range e.Headers {
			if err := cliflag.Header(spec.Header).Set(k + ":" + v); err != nil {
				return agentSpec{}, fmt.Errorf("headers: %w", err)
			}
		}
	}
	return spec, nil
}

// settleEntry gives s the terms and policy of its entry.
func (o *options) settleEntry(s *agentSpec) error {
	e := s.entry
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
		p := e.Policy
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.dir, p)
		}
		pol, err := policy.Load(p)
		if err != nil {
			return fmt.Errorf("policy: %w", err)
		}
		s.Policy = pol
	}
	return nil
}
