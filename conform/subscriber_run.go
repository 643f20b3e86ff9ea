package conform

import (
	"context"
	"errors"
)

// SubscriberOptions say how to test a subscriber.
type SubscriberOptions struct {
	Level Level
	Fast  bool
	// Exec, if not empty, is the subscriber's command line, run by the
	// suite; {endpoint} in it is replaced by where the suite serves.
	// Without it the suite serves on Addr and waits for a subscriber.
	Exec string
	Addr string // host:port to serve on; "127.0.0.1:0" when empty
	// Only, if not empty, runs just these test IDs (verify --recheck).
	Only []string
	// Seed, if not zero, shuffles the order the tests run in.
	Seed uint64
	// Ready, if not nil, is told where the suite serves, once it does.
	Ready func(endpoint string)
	// Progress, if not nil, is told each result as it is found.
	Progress func(Result)
}

// SubscriberTests is the subscriber catalogue, in the order the tests run.
func SubscriberTests() []Test { return nil }

// TestSubscriber runs the subscriber tests up to o.Level. An error means
// the suite could not run at all (exit 2).
func TestSubscriber(ctx context.Context, o SubscriberOptions) (*Report, error) {
	return nil, errors.New("conform: the subscriber tests are not built yet")
}
