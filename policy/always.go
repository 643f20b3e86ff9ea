package policy

// maxAlways bounds the remembered "always" answers; the oldest is forgotten
// first (its prompts are asked again).
const maxAlways = 1024

type alwaysKey struct{ session, tool string }

// Always remembers the "always" answers a user gave during a run: accept or
// reject every confirmation about one tool in one session. It is not safe
// for concurrent use; the zero Always is ready.
type Always struct {
	m     map[alwaysKey]string
	order []alwaysKey
}

// Set remembers verdict (Accept or Reject) for tool in session.
func (a *Always) Set(session, tool, verdict string) {
	k := alwaysKey{session, tool}
	if a.m == nil {
		a.m = make(map[alwaysKey]string)
	}
	if _, ok := a.m[k]; !ok {
		if len(a.order) == maxAlways {
			delete(a.m, a.order[0])
			a.order = a.order[1:]
		}
		a.order = append(a.order, k)
	}
	a.m[k] = verdict
}

// Get returns the verdict remembered for tool in session, if any.
func (a *Always) Get(session, tool string) (string, bool) {
	if tool == "" {
		return "", false
	}
	v, ok := a.m[alwaysKey{session, tool}]
	return v, ok
}
