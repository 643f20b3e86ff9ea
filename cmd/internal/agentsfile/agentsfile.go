// Package agentsfile reads an agents file (aaep-listen --agents FILE): the
// agents to listen to, each with settings of its own, checked and bounded.
package agentsfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/net/http/httpguts"

	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// MaxFileSize bounds an agents file: thousands of entries, far more than
// any run listens to. ReadFile refuses a larger file without reading more
// of it.
const MaxFileSize = 1 << 20

// Entry is one agent of an agents file: its endpoint and label checked,
// its other settings as the file gives them. The terms (Verbosity,
// Include, Exclude, Rate, Lang) and the policy are the reader's to settle
// against its own flags: a setting left out is "", nil or 0.
type Entry struct {
	agentspec.Spec        // its label ("" for none) and endpoint, checked
	Name           string // how errors name it: "entry 2 (mail)"; the label is sanitized
	Token          string
	Header         http.Header // checked header lines; nil for none
	Verbosity      string
	Include        []string
	Exclude        []string
	Rate           int
	Lang           []string
	// Policy is the path of its policy file, a relative one joined to the
	// agents file's directory; "" for none.
	Policy string
	Mute   bool
	// For an acp: agent only: the mode to select (in place of
	// --agent-mode), its first task (in place of --task), and its working
	// directory, a relative one joined to the agents file's directory;
	// "" for the flags' (the listener's directory).
	AgentMode, Task, Dir string
}

// fileEntry is an entry as written. Every key but endpoint may be left
// out.
type fileEntry struct {
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
	Mode      string            `json:"mode"`
	Task      string            `json:"task"`
	Dir       string            `json:"dir"`
}

// ReadFile reads the agents file at path (see ParseFile), refusing one larger
// than MaxFileSize without reading more of it: a device such as /dev/zero
// never ends. Its errors begin with the file's name ("a.json: entry 2
// (code): unknown key …").
func ReadFile(path string) ([]Entry, error) {
	name := protocol.Name(path)
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is said once, first
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes; it is not a list of agents", name, MaxFileSize)
	}
	entries, err := ParseFile(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return entries, nil
}

// ParseFile reads an agents file: a JSON array of entries, or an object
// {"agents": [...]}, each entry an object with at least an endpoint. An
// unknown key, a value of the wrong type, a label that is not one (see
// agentspec.ValidLabel), an endpoint that is not one, "-" (standard input) and two
// labels alike (letter case aside) are errors naming the entry; nothing of
// the file reaches an error unsanitized. A relative policy path is joined
// to dir.
func ParseFile(data []byte, dir string) ([]Entry, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, errors.New(protocol.Name(err.Error()))
		}
		for k := range top {
			if k != "agents" {
				return nil, fmt.Errorf("unknown key %q; the file is a list of agents, or {\"agents\": [...]}", protocol.Name(k))
			}
		}
		data = top["agents"]
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || len(raw) == 0 {
		return nil, errors.New("not a list of agents (JSON objects with at least an endpoint)")
	}
	entries := make([]Entry, 0, len(raw))
	seen := map[string]bool{}
	for i, r := range raw {
		name := fmt.Sprintf("entry %d", i+1)
		var fe fileEntry
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&fe); err != nil {
			return nil, fmt.Errorf("%s: %s", name, entryError(err))
		}
		if fe.Label != "" {
			name += " (" + protocol.Name(fe.Label) + ")"
		}
		e, err := checkEntry(fe, dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		e.Name = name
		if e.Label != "" {
			if seen[strings.ToLower(e.Label)] {
				return nil, fmt.Errorf("%s: %w", name, LabelTwice(e.Label))
			}
			seen[strings.ToLower(e.Label)] = true
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// LabelTwice is the error of a label given to two agents.
func LabelTwice(label string) error {
	return fmt.Errorf("the label %s is given twice: each agent needs its own", protocol.Name(label))
}

// entryError puts a decoding error in words: an unknown key is named.
func entryError(err error) string {
	s := err.Error()
	if k, ok := strings.CutPrefix(s, "json: unknown field "); ok {
		return fmt.Sprintf("unknown key %s; keys are endpoint, label, token, headers, verbosity, include, exclude, rate, lang, policy, mute, and for acp: agents mode, task and dir", protocol.Name(k))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s must be a %s", protocol.Name(te.Field), te.Type)
	}
	return protocol.Name(strings.TrimPrefix(s, "json: "))
}

// checkEntry is the agent fe describes, its endpoint, label and headers
// checked.
func checkEntry(fe fileEntry, dir string) (Entry, error) {
	if fe.Endpoint == "" {
		return Entry{}, errors.New("no endpoint")
	}
	if err := transport.CheckEndpoint(fe.Endpoint); err != nil {
		return Entry{}, err
	}
	if fe.Endpoint == "-" {
		return Entry{}, errors.New("- (events on standard input) cannot be an agent of a file: standard input takes your commands")
	}
	if fe.Label != "" {
		if err := agentspec.CheckLabel(fe.Label); err != nil {
			return Entry{}, err
		}
	}
	e := Entry{
		Spec:  agentspec.Spec{Label: fe.Label, Endpoint: fe.Endpoint},
		Token: fe.Token, Verbosity: fe.Verbosity, Include: fe.Include, Exclude: fe.Exclude,
		Rate: fe.Rate, Lang: fe.Lang, Policy: fe.Policy, Mute: fe.Mute,
		AgentMode: fe.Mode, Task: fe.Task, Dir: fe.Dir,
	}
	if e.Policy != "" && !filepath.IsAbs(e.Policy) {
		e.Policy = filepath.Join(dir, e.Policy)
	}
	if err := checkACP(&e, dir); err != nil {
		return Entry{}, err
	}
	if len(fe.Headers) > 0 {
		e.Header = http.Header{}
		for k, v := range fe.Headers {
			// Checked here, not when the request is made: a name with a
			// ':' or a value with a line break would change what is sent.
			if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) {
				return Entry{}, fmt.Errorf("headers: %q is not a header line (a name of letters, digits and -, and a value without control characters)", protocol.Name(k))
			}
			if err := cliflag.Header(e.Header).Set(k + ":" + v); err != nil {
				return Entry{}, fmt.Errorf("headers: %w", err)
			}
		}
	}
	return e, nil
}

// checkACP checks the keys only an acp: agent takes: its mode is one
// word, its task words, its directory a directory (a relative one is the
// agents file's).
func checkACP(e *Entry, dir string) error {
	if e.AgentMode == "" && e.Task == "" && e.Dir == "" {
		return nil
	}
	if transport.BindingOf(e.Endpoint) != transport.BindingACP {
		return errors.New("mode, task and dir are for acp: agents only (an agent this listener starts)")
	}
	if m := e.AgentMode; len(m) > 64 || strings.ContainsFunc(m, func(r rune) bool { return r <= ' ' || r == 0x7f || !unicode.IsPrint(r) }) {
		return fmt.Errorf("mode %s is not a mode's name (one word, at most 64 bytes)", protocol.Name(m))
	}
	if t := e.Task; len(t) > 16384 || (t != "" && strings.TrimSpace(t) == "") {
		return errors.New("task must be words, at most 16384 bytes")
	}
	if e.Dir != "" {
		if !filepath.IsAbs(e.Dir) {
			e.Dir = filepath.Join(dir, e.Dir)
		}
		if st, err := os.Stat(e.Dir); err != nil || !st.IsDir() {
			return fmt.Errorf("dir %s is not a directory", protocol.Name(e.Dir))
		}
	}
	return nil
}
