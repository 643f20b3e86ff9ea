package producer

// This file holds what the message bindings share (WebSocket, Unix socket,
// stdio JSON-RPC): the handshake as the first message, then events one way
// and replies, renegotiation and close the other, on one connection.

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/aaep-term/aaep-term/internal/wire"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/sigrpl"
)

// inbound is one message from a subscriber.
type inbound struct {
	data   []byte          // the AAEP message
	id     json.RawMessage // JSON-RPC request id; nil for anything else
	method string          // JSON-RPC method; "" on other bindings
}

// peer is one subscriber's connection as a binding presents it. next is
// called by one goroutine; send and answer may be called concurrently with
// it and with each other; end may be called from anywhere, more than once
// (the first call counts), and makes a blocked next return an error.
type peer interface {
	// next returns the subscriber's next message.
	next() (inbound, error)
	// send writes an event.
	send(msg []byte) error
	// answer writes the answer to in; refused marks a rejection or an error.
	answer(in inbound, msg []byte, refused bool) error
	// end tells the subscriber the connection ends, and why.
	end(code int, reason string)
}

// silentHangup is a peer whose hang-up cannot say why (a Unix socket,
// appendix B.4): its subscriber takes any hang-up for a loss and dials
// again, so a subscription ended for good is first closed in words, with a
// subscription.close (spec §5.8).
type silentHangup interface {
	peer
	hangupIsSilent()
}

// reasonFinished is the reason_code of the subscription.close that ends a
// subscription because the producer's run has ended.
const reasonFinished = "producer_finished"

// serveFramed serves one subscriber on pe until the connection or the
// subscription ends. via names the binding for Options.OnMessage; manifest,
// if not empty, is the manifest_uri announced.
func (p *Producer) serveFramed(ctx context.Context, pe peer, via, manifest string) {
	if !p.serving() {
		pe.end(protocol.CloseGoingAway, "the producer is shutting down")
		return
	}
	defer p.conns.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	first, err := pe.next()
	if err != nil {
		p.opts.Logf("producer: a subscriber left before subscribing: %v", err)
		return
	}
	if p.ended() {
		pe.end(protocol.CloseSubscriptionEnded, "the producer has finished")
		return
	}
	sub, acc, rej := p.subscribe(first.data, manifest)
	if rej != nil {
		p.opts.Logf("producer: subscription rejected: %v", rej)
		_ = pe.answer(first, marshal(rej.message()), true)
		pe.end(protocol.CloseRejected, rej.code)
		return
	}
	// Where the stream starts is fixed before the subscriber hears it is
	// accepted: whatever is sent once it has heard so reaches it.
	var own *eventLog
	var cursor uint64
	var waiting []record
	if !p.ownPlaying() {
		cursor = p.startIndex("")
		waiting = p.waiting(cursor)
	}
	if err := pe.answer(first, marshal(acc), false); err != nil {
		p.dropSubscription(sub)
		return
	}
	p.mu.Lock()
	p.streams++
	seed := p.streams
	sub.streams++
	p.mu.Unlock()
	p.begin()
	if p.ownPlaying() {
		own, _ = p.playOwn(ctx, "", sub) // a new subscription: always from the start
	}

	fed := make(chan struct{})
	go func() {
		defer close(fed)
		out := p.newStreamOut(seed)
		out.framed = true
		out.first = waiting
		finished := p.feed(ctx, sub, own, out, cursor, nil, func() error {
			for i, m := range out.msgs {
				out.msgs[i] = nil
				if err := pe.send(m); err != nil {
					return err
				}
			}
			out.msgs = out.msgs[:0]
			return nil
		})
		switch {
		case finished:
			if _, mute := pe.(silentHangup); mute {
				// The reason code says it all: a message would say it twice.
				_ = pe.send(marshal(protocol.SubscriptionClose{Type: protocol.TypeSubscriptionClose,
					SubscriptionID: sub.id, ReasonCode: reasonFinished}))
			}
			pe.end(protocol.CloseSubscriptionEnded, "the producer has finished")
			p.sentAll(own)
		case p.ctx.Err() != nil:
			pe.end(protocol.CloseGoingAway, "the producer is shutting down")
		default:
			pe.end(protocol.CloseSubscriptionEnded, "the subscription has ended")
		}
	}()
	p.readFramed(pe, sub, via, manifest)
	cancel()
	<-fed
	p.mu.Lock()
	sub.streams--
	p.mu.Unlock()
	if p.dropSubscription(sub) {
		p.opts.Logf("producer: %s ended with its connection", sub.id)
	}
}

// readFramed handles the subscriber's messages until the connection ends.
func (p *Producer) readFramed(pe peer, sub *subscription, via, manifest string) {
	for {
		in, err := pe.next()
		if err != nil {
			return
		}
		if in.method == wire.MethodPing {
			_ = pe.answer(in, []byte(`{}`), false)
			continue
		}
		p.told(via, in.data)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(in.data, &m); err != nil || m == nil {
			p.opts.Logf("producer: ignored a message that is not a JSON object")
			if in.id != nil {
				_ = pe.answer(in, marshal(map[string]string{"error": "the message is not a JSON object"}), true)
			}
			continue
		}
		typ, _ := stringField(m, "type")
		switch typ {
		case protocol.TypeSubscriptionRequest:
			p.opts.Logf("producer: ignored a second subscription.request on %s", sub.id)
			_ = pe.answer(in, marshal(reject(http.StatusConflict, "unknown", "this connection is subscribed already as %s", sub.id).message()), true)
		case protocol.TypeSubscriptionRenegotiate:
			status, answer, refused := p.renegotiateMsg(m, manifest)
			_ = pe.answer(in, marshal(answer), status/100 != 2)
			if refused != nil { // a refused renegotiation ends the subscription
				pe.end(protocol.CloseRejected, "renegotiation refused")
				p.dropSubscription(refused)
			}
		case protocol.TypeSubscriptionClose:
			status, answer := p.closeMsg(m)
			if in.id != nil {
				_ = pe.answer(in, marshal(answer), status/100 != 2)
			}
			pe.end(protocol.CloseSubscriptionEnded, "subscription closed")
		case sigrpl.TypeSignedReply:
			err := p.framedSigned(sub, in.data)
			if err != nil {
				p.opts.Logf("producer: signed reply refused: %v", err)
			}
		default:
			if p.opts.Replay != nil {
				continue // received, reported, and changes nothing
			}
			err := p.plainAllowed()
			if err == nil {
				err = p.reply(typ, m, false, nil)
			}
			if err == nil {
				continue
			}
			p.opts.Logf("producer: reply refused: %v", err)
			if typ == protocol.TypeTask || typ == protocol.TypeTaskCancel {
				// The answer an HTTP subscriber has in the POST's status:
				// without it, the person's task would be dropped unsaid.
				_ = pe.send(protocol.TaskRefusedMessage(typ, err.Error(), sub.id, p.now()))
			}
		}
	}
}

func marshal(v any) []byte {
	b, _ := json.Marshal(v) // our own values always encode
	return b
}
