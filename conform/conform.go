// Package conform is the AAEP conformance catalogue: live tests of
// producers and subscribers at Levels 1 to 3, their reports and receipts.
//
// A producer is tested through [subscriber] and [transport] as any
// subscriber would reach it; a subscriber is tested by serving it a
// scripted session from conform's own scripted producer (the stage: the
// HTTP binding in the spec's layout and WebSocket, where the suite decides
// when each event is written and records every message the subscriber
// sends), not from [producer]. [TargetScenarios] are what [producer] plays
// to be a target that passes every producer test. Each test has a stable
// ID, the
// requirement it checks and the spec section it comes from; each result
// says pass, fail, skip or warn, why, and the frames that show it.
package conform

import (
	"encoding/json"
	"time"
)

// Level is a conformance level of AAEP: 1 notification, 2 interactive,
// 3 negotiated. A level includes every level below it.
type Level int

// Role is what is tested: a producer or a subscriber.
type Role string

// The roles.
const (
	RoleProducer   Role = "producer"
	RoleSubscriber Role = "subscriber"
)

// Status is the outcome of one test.
type Status string

// The outcomes. A warning is a SHOULD not met: it does not stop a claim.
// A skip does (a level is claimed only when every one of its tests ran).
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
	Warn Status = "warn"
)

// Test is one entry of the catalogue.
type Test struct {
	ID          string `json:"id"`          // stable, e.g. "P1-lifecycle-bracketing"
	Role        Role   `json:"role"`        // who is tested
	Level       Level  `json:"level"`       // the lowest level that requires it
	Requirement string `json:"requirement"` // what is checked, in our words
	Section     string `json:"section"`     // the spec section, e.g. "9.3.1"
}

// Evidence is one frame or observation a result rests on.
type Evidence struct {
	// At is when it was seen, from the start of the test.
	At time.Duration `json:"at_ns"`
	// Dir is "received" (from the implementation tested), "sent" (by
	// the suite) or "note" (an observation, such as a timing).
	Dir string `json:"dir"`
	// Frame is the message as on the wire, when there is one.
	Frame json.RawMessage `json:"frame,omitempty"`
	// Note says what the frame shows.
	Note string `json:"note,omitempty"`
}

// Result is what one test found.
type Result struct {
	Test
	Status   Status        `json:"status"`
	Detail   string        `json:"detail"` // one sentence: why it passed, failed or was skipped
	Evidence []Evidence    `json:"evidence,omitempty"`
	Took     time.Duration `json:"took_ns"`
}

// Suite names the test suite that ran.
type Suite struct {
	Name        string `json:"name"`         // "aaep-conform"
	Version     string `json:"version"`      // its build version
	AAEPVersion string `json:"aaep_version"` // protocol.Version
	// Catalogue is the SHA-256 (hex) of the catalogue's canonical JSON: the
	// tests, their IDs, requirements and sections (CatalogueHash).
	Catalogue string `json:"catalogue_sha256"`
}

// Target is the implementation tested.
type Target struct {
	Endpoint     string `json:"endpoint,omitempty"` // producer: where it was reached
	Command      string `json:"command,omitempty"`  // subscriber: the command run (--exec)
	Binding      string `json:"binding,omitempty"`
	AgentID      string `json:"agent_id,omitempty"` // from the manifest or handshake
	AgentName    string `json:"agent_name,omitempty"`
	AgentVersion string `json:"agent_version,omitempty"`
	Subscriber   string `json:"subscriber,omitempty"` // subscriber_id and name, for a subscriber
}

// Report is one run of the suite against one implementation.
type Report struct {
	Suite    Suite     `json:"suite"`
	Target   Target    `json:"target"`
	Role     Role      `json:"role"`
	Level    Level     `json:"level"` // the level asked for
	Fast     bool      `json:"fast"`  // long timeouts were skipped
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Results  []Result  `json:"results"`
}
