package conform

import (
	"context"
	"errors"

	"github.com/aaep-term/aaep-term/transport"
)

// ProducerOptions say how to test a producer.
type ProducerOptions struct {
	Endpoint string // as aaep-listen takes it: http(s)://, ws(s)://, unix:, exec:, grpc://
	Level    Level
	// Fast skips waits longer than a few seconds (prompt timeouts): the
	// tests that need them are skipped and say so.
	Fast bool
	// Trigger, if not empty, starts a session: "METHOD URL [BODY]".
	Trigger string
	// Only, if not empty, runs just these test IDs (verify --recheck).
	Only []string
	// Seed, if not zero, shuffles the order the tests run in.
	Seed uint64
	// Transport carries tokens, headers and TLS for the endpoint.
	Transport transport.Options
	// Progress, if not nil, is told each result as it is found.
	Progress func(Result)
}

// ProducerTests is the producer catalogue, in the order the tests run.
func ProducerTests() []Test { return nil }

// TestProducer runs the producer tests up to o.Level against o.Endpoint.
// An error means the suite could not run at all (exit 2); a report with
// failures is not an error.
func TestProducer(ctx context.Context, o ProducerOptions) (*Report, error) {
	return nil, errors.New("conform: the producer tests are not built yet")
}
