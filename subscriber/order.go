package subscriber

// order.go: the producer's answer to a renegotiation that comes back on
// the exchange that carried it (HTTP) is handled when it comes, in turn
// with the request, not queued behind the frames already received.

import (
	"context"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// sendAnswered sends a subscription.renegotiate. When the binding brings
// the producer's answer back with it (transport.Answerer), the answer is
// handled at once, on the owner goroutine: the producer applies new terms
// to every event it sends after its answer (spec §5.7.2), so the answer
// comes before every frame not yet handled; those sent before it are in
// flight, and tolerated as such. Otherwise the answer comes in the stream.
func (c *Client) sendAnswered(ctx context.Context, msg []byte) error {
	if c.conn == nil {
		return ErrClosed
	}
	a, ok := c.conn.(transport.Answerer)
	if !ok {
		return c.send(ctx, msg)
	}
	if c.cfg.Tap != nil {
		c.cfg.Tap(Sent, msg, c.now())
	}
	answer, err := a.SendAnswered(ctx, msg)
	if err != nil || answer == nil {
		return err
	}
	var dec protocol.Decoder // an answer is no event: nothing to remember
	d := decode(&dec, transport.Frame{Data: answer, Event: transport.EventHandshake, At: c.now()})
	c.handle(&d)
	return nil
}

// SendAnswered implements transport.Answerer over the current connection.
func (r *retryConn) SendAnswered(ctx context.Context, msg []byte) ([]byte, error) {
	conn := r.conn()
	if a, ok := conn.(transport.Answerer); ok {
		return a.SendAnswered(ctx, msg)
	}
	return nil, conn.Send(ctx, msg)
}
