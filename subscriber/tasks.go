package subscriber

// tasks.go: giving a served agent its task over AAEP, by the agent-tasks
// extension (protocol.TasksPrefix, docs/extensions.md): aaep-bridge
// serves an ACP agent so, and tell and cancel reach it this way.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
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

// Tell gives the producer's agent a task (an agtask:task message). A nil
// error means the message was delivered; what the agent does comes as
// events (a refusal, such as a task while it works on another, comes as
// an error on HTTP and as a problem line of the producer's elsewhere).
func (c *Client) Tell(ctx context.Context, task string) error {
	if strings.TrimSpace(task) == "" {
		return errors.New("subscriber: no task to give")
	}
	return c.sendTask(ctx, protocol.TypeTask, task)
}

// CancelTask cancels the task the producer's agent is doing (an
// agtask:cancel message).
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
	}); derr != nil {
		return derr
	}
	return err
}
