package policy

// maxAlways bounds the remembered "always" answers; the oldest is forgotten
// first (its prompts are asked again).
const maxAlways = 1024

// alwaysKey is what an "always" answer is about: one tool, in one session
// of one agent. Two agents may use the same session id; neither inherits
// the other's answers.
type alwaysKey struct{ agent, session, tool string }

// remembered is an "always" answer and the facts of the prompt it was
// given to, so that each later use can be checked against them.
type remembered struct {
	verdict  string
	answered Facts
}

// alwaysMemory remembers the "always" answers a user gave during a run:
// accept or reject every confirmation about one tool in one session of one
// agent. It is not safe for concurrent use; the zero alwaysMemory is ready.
// Only a Gate reads it, and the Gate checks each use against the prompt
// answered.
type alwaysMemory struct {
	m     map[alwaysKey]remembered
	order []alwaysKey
}

func keyOf(f Facts) alwaysKey { return alwaysKey{f.Agent, f.Session, f.Tool} }

// set remembers verdict (Accept or Reject) for the prompt f, replacing an
// earlier answer about the same tool, session and agent.
func (a *alwaysMemory) set(f Facts, verdict string) {
	k := keyOf(f)
	if a.m == nil {
		a.m = make(map[alwaysKey]remembered)
	}
	if _, ok := a.m[k]; !ok {
		if len(a.order) == maxAlways {
			delete(a.m, a.order[0])
			a.order = a.order[1:]
		}
		a.order = append(a.order, k)
	}
	a.m[k] = remembered{verdict: verdict, answered: f}
}

// get returns the answer remembered for f's tool, session and agent.
func (a *alwaysMemory) get(f Facts) (remembered, bool) {
	if f.Tool == "" {
		return remembered{}, false
	}
	r, ok := a.m[keyOf(f)]
	return r, ok
}
