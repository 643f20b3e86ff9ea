package acp

// This file serves a bridged agent to any number of AAEP subscribers: the
// bridge is the source of a live producer (producer.Live), which speaks
// every binding, and tasks reach it as messages of our agent-tasks
// extension (protocol.TypeTask, docs/extensions.md).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// maxTask is the longest task text a served agent takes, in bytes.
const maxTask = 64 << 10

// Serve starts the agent argv and returns it as the live source of a
// producer (producer.Options.Live), which serves it to every subscriber:
// the producer checks their replies and hands them to the bridge, which
// answers the agent exactly as for one subscriber in process. Nothing is
// accepted by itself: a permission request waits until a subscriber
// answers it, Cancel, or its window (Options.PromptWindow) ends in a
// reject, whoever comes or goes. diag takes the bridge's problem notes
// (nil: dropped). ctx bounds the start. Close the bridge to stop the agent.
func (b *Bridge) Serve(ctx context.Context, argv []string, diag func(string)) (*producer.Live, error) {
	b.mu.Lock()
	b.served = true
	b.mu.Unlock()
	if err := b.start(ctx, argv, diag); err != nil {
		b.Close()
		return nil, err
	}
	// The producer is the bridge's one subscriber, answering for all of
	// its own: it takes confirmations and questions.
	b.accepted(json.RawMessage(`{"supports_confirmation_reply":true,"supports_clarification_reply":true}`))
	b.mu.Lock()
	agent := producer.Agent{ID: nonEmpty(b.name, "acp"), Name: b.title, Version: b.version}
	b.mu.Unlock()
	var watched func()
	if b.opts.Task != "" {
		watched = b.firstTask
	}
	return &producer.Live{
		Watched: watched,
		Agent:   agent,
		Next:    func(ctx context.Context) ([]byte, error) { return b.q.pop(ctx.Done()) },
		Reply:   b.servedReply,
		Gone:    b.unanswerable,
		Messages: map[string]func([]byte) error{
			protocol.TypeTask:       inWords(b.taskMessage),
			protocol.TypeTaskCancel: inWords(func([]byte) error { return b.Cancel() }),
		},
		Honored: map[string]json.RawMessage{protocol.TasksPrefix: protocol.TasksCapability},
	}, nil
}

// firstTask gives a served agent the task of Options.Task once its first
// subscriber listens, so that it hears the task's session from its start
// (and the warning of a mode that acts without asking), not from the
// middle of it. A refusal is told to whoever runs the bridge.
func (b *Bridge) firstTask() {
	if err := b.Tell(b.opts.Task); err != nil {
		words := err.Error()
		if nt, ok := errors.AsType[*NotTaken](err); ok {
			words = nt.Words()
		}
		b.say("The task given at the start was not given: " + words)
	}
}

// servedReply takes a reply the producer checked: only replies reach the
// bridge this way, never a subscription's close, which would end the
// agent for everyone.
func (b *Bridge) servedReply(msg []byte) error {
	switch protocol.PeekType(msg) {
	case protocol.TypeConfirmationReply, protocol.TypeClarificationReply:
		return b.fromSubscriber(msg)
	}
	return errors.New("acp: only confirmation and clarification replies are taken")
}

// unanswerable answers the request or question of token as its default
// says, since no subscriber is left who can answer it (spec §5.8.2): a
// permission request is rejected (never accepted), a question cancelled.
func (b *Bridge) unanswerable(token string) {
	if b.answer(token, protocol.DecisionReject) == nil {
		b.say("Nobody who can answer is subscribed any more; the agent was told no, as the protocol asks.")
		return
	}
	b.elicitGone(token, "Nobody who can answer is subscribed any more; the agent was told its question was cancelled.")
}

// inWords is take with its refusals in the words the subscriber is sent
// (the reason of agtask:refused, or the body of HTTP's 409): a NotTaken's
// words, for the person who gave the task.
func inWords(take func([]byte) error) func([]byte) error {
	return func(msg []byte) error {
		err := take(msg)
		if nt, ok := errors.AsType[*NotTaken](err); ok {
			return errors.New(nt.Words())
		}
		return err
	}
}

// taskMessage gives the agent the task an agtask:task message carries.
func (b *Bridge) taskMessage(msg []byte) error {
	var m struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return &NotTaken{fmt.Sprintf("The task message is not one the agent takes (%s): %v.", protocol.TypeTask, err)}
	}
	if len(m.Text) > maxTask {
		return &NotTaken{fmt.Sprintf("The task is %d bytes long, over the limit of %d.", len(m.Text), maxTask)}
	}
	return b.Tell(m.Text)
}
