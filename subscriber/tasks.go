package subscriber

// tasks.go: giving a served agent its task over AAEP, by the agent-tasks
// extension (protocol.TasksPrefix, docs/extensions.md): aaep-bridge
// serves an ACP agent so, and tell and cancel reach it this way.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// ErrNoTasks is returned by Tell and CancelTask when the producer did not
// say it takes tasks.
var ErrNoTasks = errors.New("subscriber: the producer takes no tasks")

// askTasks asks for the agent-tasks capability in req.
func askTasks(req *protocol.SubscriptionRequest) {
	if req.Capabilities.Extra == nil {
		req.Capabilities.Extra = map[string]json.RawMessage{}
	}
	req.Capabilities.Extra[protocol.TasksPrefix] = protocol.TasksCapability
}

// TakesTasks reports whether the producer honoured the agent-tasks
// capability (asked for by Config.Tasks): Tell and CancelTask reach it.
func (c *Client) TakesTasks() bool {
	_, ok := c.Terms().Honored.Extra[protocol.TasksPrefix]
	return ok
}

// honoredTasks is TakesTasks on the client's own goroutine.
func (c *Client) honoredTasks() bool {
	_, ok := c.neg.honored.Extra[protocol.TasksPrefix]
	return ok
}

// Tell gives the producer's agent a task (an agtask:task message). A nil
// error means the message was delivered; what the agent does comes as
// events. A task the producer refuses (the agent works on another, say) is
// a *TaskRefusedError over HTTP, the answer to the POST; on every other
// binding the refusal comes later, as an Update of KindStatus with
// StatusRefused.
func (c *Client) Tell(ctx context.Context, task string) error {
	if strings.TrimSpace(task) == "" {
		return errors.New("subscriber: no task to give")
	}
	return c.sendTask(ctx, protocol.TypeTask, task)
}

// CancelTask cancels the task the producer's agent is doing (an
// agtask:cancel message). A refusal comes as Tell's does.
func (c *Client) CancelTask(ctx context.Context) error {
	return c.sendTask(ctx, protocol.TypeTaskCancel, "")
}

func (c *Client) sendTask(ctx context.Context, typ, text string) error {
	if !c.TakesTasks() {
		return ErrNoTasks
	}
	var err error
	if derr := c.do(ctx, func() {
		ctx, cancel := context.WithTimeout(ctx, sendTimeout)
		defer cancel()
		err = c.send(ctx, protocol.TaskMessage(typ, c.neg.subID, text, c.now()))
		if err == nil && c.ep.Binding != transport.BindingSSE {
			c.tasksSent++ // over HTTP the answer to the POST was the refusal
		}
	}); derr != nil {
		return derr
	}
	return refusedOverHTTP(typ, err)
}

// TaskRefusedError is the error of Tell or CancelTask over HTTP when the
// producer refused the message (409 Conflict). On the other bindings the
// refusal comes later, as an Update with StatusRefused in Words' words.
type TaskRefusedError struct {
	Refused string        // protocol.TypeTask or protocol.TypeTaskCancel
	Reason  protocol.Text // the producer's words; may be empty
}

func (e *TaskRefusedError) Error() string {
	what := "subscriber: the producer refused the task"
	if e.Refused == protocol.TypeTaskCancel {
		what = "subscriber: the producer did not cancel the task"
	}
	if e.Reason == "" {
		return what
	}
	return what + ": " + e.Reason.Line()
}

// Words says the refusal to a person, in one sanitized line, the
// producer's words marked as theirs.
func (e *TaskRefusedError) Words() string {
	what := "The producer refused your task."
	if e.Refused == protocol.TypeTaskCancel {
		what = "The producer did not cancel the task."
	}
	if e.Reason != "" {
		what += " " + prose.Stop("It says: "+protocol.Theirs(prose.Cut(e.Reason.Line(), maxReasonWords)))
	}
	return what
}

// maxReasonWords is the most characters of a refusal's reason said: the
// extension allows 4,096 bytes, a producer may send more.
const maxReasonWords = 1000

// refusedOverHTTP is err as a *TaskRefusedError when it is the producer's
// 409 answer to a message of type typ, else err.
func refusedOverHTTP(typ string, err error) error {
	he := conflict(err)
	if he == nil {
		return err
	}
	reason := he.Message
	if reason == "" {
		reason = he.Code
	}
	return &TaskRefusedError{Refused: typ, Reason: reason}
}

// taskRefused says that the producer refused a task or a cancel sent on
// this connection (an agtask:refused message). A producer cannot say more
// refusals than messages were sent to it: it cannot make you hear that
// you gave a task you never gave.
func (c *Client) taskRefused(b []byte, now time.Time) {
	if c.tasksSent == 0 {
		c.diagnose(session.Diagnostic{At: now, Code: "invalid", Message: "The producer sent " + protocol.TypeTaskRefused +
			" although no task or cancel waits for its answer; it is not announced."})
		return
	}
	c.tasksSent--
	var m protocol.TaskRefusal
	_ = json.Unmarshal(b, &m) // an unreadable refusal is still a refusal
	c.say(StatusRefused, (&TaskRefusedError{Refused: m.Refused, Reason: protocol.Text(m.Reason)}).Words())
}
