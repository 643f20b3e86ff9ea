package announce

// SetVerbosity changes the verbosity of what is announced from now on
// (terse, normal or detailed; per-type settings still win), as the user's
// "set verbosity" asks. Like Deliver, it is called from the goroutine that
// drives the announcer.
func (a *Announcer) SetVerbosity(v string) { a.cfg.Verbosity = v }
