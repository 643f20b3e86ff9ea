// silence.go holds Announcer.Silence, the user's "stop" command.

package announce

import "errors"

// Silencer is implemented by sinks that can drop what waits to be said and
// stop what is being said, critical announcements excepted (as Pacer does).
type Silencer interface {
	Silence() (dropped int, err error)
}

// Silence asks every sink that is a Silencer to stop speaking what is not
// critical. It reports how many queued announcements were dropped and
// whether any sink could be silenced at all. Unlike Deliver it may be
// called from any goroutine.
func (a *Announcer) Silence() (dropped int, silenced bool, err error) {
	var errs []error
	for _, s := range a.sinks {
		if si, ok := s.(Silencer); ok {
			silenced = true
			n, e := si.Silence()
			dropped += n
			errs = append(errs, e)
		}
	}
	return dropped, silenced, errors.Join(errs...)
}
