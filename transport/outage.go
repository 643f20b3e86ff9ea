package transport

// outage.go: the one line said when the producer cannot be reached again
// after a connection was lost, so that an outage is never silent.

import "fmt"

// outage remembers whether the current outage was told.
type outage struct{ told bool }

// lost starts an outage: the connection was lost.
func (o *outage) lost() { o.told = false }

// failed returns the words for a reconnect attempt that failed with err,
// once an outage; "" after that, as the attempts go on in silence.
func (o *outage) failed(err error) string {
	if o.told {
		return ""
	}
	o.told = true
	return fmt.Sprintf("Could not reach the producer again (%v); still trying, and saying so when it is back.", err)
}
