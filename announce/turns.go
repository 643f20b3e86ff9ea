// turns.go holds turns, which lets agents take turns in a Pacer's queues.

package announce

// maxTurns bounds the agents whose last turn is remembered; past it, only
// those with something queued are kept.
const maxTurns = 256

// turns remembers when each agent was last heard, so that the next
// announcement passed on is the oldest of the agent heard least recently
// (never heard counts as longest ago). However many announcements one agent
// has queued, another agent's waits behind one of them at most.
type turns struct {
	clock  uint64
	served map[string]uint64 // agent → the clock when it was last heard
}

// source is whose an is, for turns: the agent as the user configured it
// (Source), else its name.
func source(an Announcement) string {
	if an.Source != "" {
		return an.Source
	}
	return an.Agent
}

// pick returns which of n queued announcements, oldest first, goes next,
// where agent(i) is whose the i-th is: the first of the agent heard least
// recently. It is 0 when n is 0.
func (t *turns) pick(n int, agent func(int) string) int {
	best, bestAt := 0, ^uint64(0)
	for i := range n {
		at := t.served[agent(i)]
		if at < bestAt {
			best, bestAt = i, at
			if at == 0 {
				break // never heard: none goes before it
			}
		}
	}
	return best
}

// took notes that agent was just heard.
func (t *turns) took(agent string) {
	t.clock++
	t.served[agent] = t.clock
}

// keep forgets every agent not in queued.
func (t *turns) keep(queued map[string]bool) {
	for a := range t.served {
		if !queued[a] {
			delete(t.served, a)
		}
	}
}
