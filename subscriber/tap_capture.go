package subscriber

// tap_capture.go: what a recorder needs beyond the frames: the
// subscription request each answer answers, and the transport's notes,
// told through the tap in their place among the frames.

import (
	"encoding/json"
	"time"
)

// tapRequest tells the tap the subscription request that the answer
// arriving at at answers, just before the answer: the transport sent it
// while connecting, so this is where a capture keeps it. A client made
// with New knows no request (whoever opened the connection made it), nor
// does a passive one.
func (c *Client) tapRequest(at time.Time) {
	if c.cfg.Tap == nil || c.retry == nil || c.cfg.Passive {
		return
	}
	c.retry.mu.Lock()
	req := c.retry.req
	c.retry.mu.Unlock()
	b, err := json.Marshal(req)
	if err != nil {
		return // plain values always marshal
	}
	if at.IsZero() {
		at = c.now()
	}
	c.cfg.Tap(Sent, b, at)
}

// tapStatus tells Config.TapStatus a status note of the transport, on the
// owner goroutine, in its place among the frames.
func (c *Client) tapStatus(n note) {
	if c.cfg.TapStatus != nil && n.isStatus {
		c.cfg.TapStatus(n.status, n.text, c.now())
	}
}
