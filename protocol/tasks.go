package protocol

// tasks.go: the messages of aaep-term's agent-tasks extension
// (docs/extensions.md), by which a subscriber gives a served agent a task
// or cancels the one it is doing, and a producer says it refused one.

import (
	"encoding/json"
	"time"
)

// The agent-tasks extension.
const (
	// TasksNamespace is the extension's namespace URI.
	TasksNamespace = "urn:aaep-term:ext:agent-tasks:v1"
	// TasksPrefix is its prefix, and its capability's key in capabilities
	// and honored_capabilities.
	TasksPrefix = "agtask"
	// TypeTask gives the agent a task.
	TypeTask = TasksPrefix + ":task"
	// TypeTaskCancel cancels the task the agent is doing.
	TypeTaskCancel = TasksPrefix + ":cancel"
	// TypeTaskRefused is the producer's answer to a task or cancel it
	// refused, on the connection it came by (bindings other than HTTP,
	// where the refusal is the answer to the POST).
	TypeTaskRefused = TasksPrefix + ":refused"
)

// TasksCapability is the capability a subscriber asks for under
// TasksPrefix, and a producer that takes tasks honours.
var TasksCapability = json.RawMessage(`{"task":true,"cancel":true}`)

// TaskMessage is an agent-tasks message of typ (TypeTask with the task's
// text, or TypeTaskCancel) on the subscription subID, dated at.
func TaskMessage(typ, subID, text string, at time.Time) []byte {
	m := map[string]string{"type": typ, "timestamp": at.UTC().Format(time.RFC3339Nano)}
	if subID != "" {
		m["subscription_id"] = subID
	}
	if typ == TypeTask {
		m["text"] = text
	}
	b, _ := json.Marshal(m) // strings always encode
	return b
}

// TaskRefusal is an agtask:refused message: the producer did not take the
// message of type Refused (TypeTask or TypeTaskCancel), for Reason.
type TaskRefusal struct {
	Type           string `json:"type"`    // TypeTaskRefused
	Refused        string `json:"refused"` // TypeTask or TypeTaskCancel
	Reason         string `json:"reason"`  // in words, for the person who sent it
	SubscriptionID string `json:"subscription_id,omitempty"`
	Timestamp      string `json:"timestamp"`
}

// TaskRefusedMessage is the agtask:refused message saying the producer
// refused a message of type refused on the subscription subID, for reason,
// at at.
func TaskRefusedMessage(refused, reason, subID string, at time.Time) []byte {
	b, _ := json.Marshal(TaskRefusal{Type: TypeTaskRefused, Refused: refused, Reason: reason,
		SubscriptionID: subID, Timestamp: at.UTC().Format(time.RFC3339Nano)}) // strings always encode
	return b
}
