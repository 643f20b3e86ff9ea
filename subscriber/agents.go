package subscriber

// maxQueued is Config.MaxQueued, or its default.
func (c *Client) maxQueued() int {
	if c.cfg.MaxQueued > 0 {
		return c.cfg.MaxQueued
	}
	return maxQueued
}
