// config.go holds Settings, the announcement settings a user keeps in a
// JSON file: verbosity, pace, and overrides per event type.

package announce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// Settings are the announcement settings of a configuration file. Zero
// fields mean "not set": the command line or the defaults decide.
type Settings struct {
	// Verbosity is terse, normal or detailed.
	Verbosity string `json:"verbosity,omitempty"`
	// PaceWPM is the listening pace, in words a minute (50 to 1000).
	PaceWPM int `json:"pace_wpm,omitempty"`
	// MaxLagSeconds is the most speech allowed to wait before the queue is collapsed.
	MaxLagSeconds float64 `json:"max_lag_seconds,omitempty"`
	// FoldSeconds is how long a repeated identical state is counted instead of said.
	FoldSeconds float64 `json:"fold_seconds,omitempty"`
	// Timestamps false leaves the time off the start of each printed line
	// (aaep-listen --no-time); unset or true prints it.
	Timestamps *bool `json:"timestamps,omitempty"`
	// Types override settings per event type. Keys are event types, written
	// as "tool.completed", "agent.tool.completed" or "aaep:agent.tool.completed".
	Types map[string]TypeSettings `json:"types,omitempty"`
}

// TypeSettings override how one event type is announced.
type TypeSettings struct {
	// Verbosity is terse, normal or detailed for this type.
	Verbosity string `json:"verbosity,omitempty"`
	// Priority is background, normal or critical. Events that are critical
	// by their type or urgency stay critical whatever it says.
	Priority string `json:"priority,omitempty"`
	// Speak false keeps the type off speech and braille; the line and JSON
	// output still show every event.
	Speak *bool `json:"speak,omitempty"`
}

// LoadSettings reads the settings file at path.
func LoadSettings(path string) (Settings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Settings{}, fmt.Errorf("announce: settings: %w", err)
	}
	s, err := ParseSettings(data)
	if err != nil {
		return Settings{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseSettings reads settings from JSON, refusing unknown fields and values
// so a typing mistake is told rather than ignored.
func ParseSettings(data []byte) (Settings, error) {
	var s Settings
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Settings{}, fmt.Errorf("announcement settings: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Settings{}, fmt.Errorf("announcement settings: more than one JSON value")
	}
	var err error
	if s.Verbosity, err = parseVerbosity(s.Verbosity, "verbosity"); err != nil {
		return Settings{}, err
	}
	if s.PaceWPM != 0 && (s.PaceWPM < 50 || s.PaceWPM > 1000) {
		return Settings{}, fmt.Errorf("pace_wpm %d: want 50 to 1000 words a minute", s.PaceWPM)
	}
	if s.MaxLagSeconds < 0 || s.MaxLagSeconds > 60 {
		return Settings{}, fmt.Errorf("max_lag_seconds %v: want 0 to 60", s.MaxLagSeconds)
	}
	if s.FoldSeconds < 0 || s.FoldSeconds > 3600 {
		return Settings{}, fmt.Errorf("fold_seconds %v: want 0 to 3600", s.FoldSeconds)
	}
	types := make(map[string]TypeSettings, len(s.Types))
	for k, t := range s.Types {
		if t.Verbosity, err = parseVerbosity(t.Verbosity, "types."+k+".verbosity"); err != nil {
			return Settings{}, err
		}
		if _, ok := priorityNamed(t.Priority); !ok {
			return Settings{}, fmt.Errorf("types.%s.priority %q: want background, normal or critical", k, t.Priority)
		}
		key := typeKey(k)
		if !strings.Contains(key, ":") {
			// Empty, or a pattern: per-type settings name one event type.
			return Settings{}, fmt.Errorf("types: %q is not an event type (write one, such as tool.completed)", k)
		}
		types[key] = t
	}
	s.Types = types
	return s, nil
}

// Pace returns the pacing part of s over base: what s sets wins.
func (s Settings) Pace(base PaceConfig) PaceConfig {
	if s.PaceWPM > 0 {
		base.WPM = s.PaceWPM
	}
	if s.MaxLagSeconds > 0 {
		base.MaxLag = time.Duration(s.MaxLagSeconds * float64(time.Second))
	}
	if s.FoldSeconds > 0 {
		base.FoldWindow = time.Duration(s.FoldSeconds * float64(time.Second))
	}
	return base
}

// parseVerbosity reads a settings file's verbosity as session.ParseVerbosity
// does; "" stays "" (not set).
func parseVerbosity(v, field string) (string, error) {
	if v == "" {
		return "", nil
	}
	w, err := session.ParseVerbosity(v)
	if err != nil {
		return "", fmt.Errorf("%s %q: want terse, normal or detailed", field, v)
	}
	return w, nil
}

func priorityNamed(s string) (Priority, bool) {
	switch s {
	case "background":
		return Background, true
	case "normal", "":
		return Normal, true
	case "critical":
		return Critical, true
	}
	return Normal, false
}

// typeKey writes an event type the way the decoder normalizes it: core
// types may be written without "aaep:" and "agent." (protocol.ExpandType,
// as the filters read them).
func typeKey(k string) string {
	return protocol.ExpandType(protocol.NormalizeType(strings.TrimSpace(k)))
}

// typeSettings returns the overrides for the event of d's kind, if any.
func (a *Announcer) typeSettings(ev *protocol.Event) (TypeSettings, bool) {
	if ev == nil || len(a.cfg.Types) == 0 {
		return TypeSettings{}, false
	}
	t, ok := a.cfg.Types[ev.Type]
	return t, ok
}

// verbosity is the verbosity for ev: its type's override, else the configured one.
func (a *Announcer) verbosity(ev *protocol.Event) string {
	if len(a.cfg.Types) == 0 {
		return a.cfg.Verbosity // no override to look for: most listeners have none
	}
	if t, ok := a.typeSettings(ev); ok && t.Verbosity != "" {
		return t.Verbosity
	}
	return a.cfg.Verbosity
}

// override applies the per-type priority and speech settings to an. A
// critical event is never made less than critical.
func (a *Announcer) override(an *Announcement) {
	t, ok := a.typeSettings(an.Event)
	if !ok {
		return
	}
	if p, _ := priorityNamed(t.Priority); t.Priority != "" && !an.Event.IsCritical() && an.Priority != Critical {
		an.Priority = p
	}
	if t.Speak != nil && !*t.Speak && an.Priority != Critical {
		an.LogOnly = true
	}
}
