// silence.go holds Announcer.Silence, the user's "stop" command.

package announce

import (
	"errors"
	"fmt"
)

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

// SilenceWords says how a stop went, from what Silence returned: dropped
// announcements not spoken, silenced when any sink could be silenced.
func SilenceWords(dropped int, silenced bool, err error) string {
	switch {
	case !silenced:
		return "Nothing to stop: speech and braille are off."
	case err != nil:
		return fmt.Sprintf("Could not stop the speech: %v.", err)
	case dropped == 1:
		return "Stopped; 1 announcement was not spoken. Everything is still in the log."
	}
	return fmt.Sprintf("Stopped; %d announcements were not spoken. Everything is still in the log.", dropped)
}
