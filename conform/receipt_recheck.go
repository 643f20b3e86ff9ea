package conform

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/aaep-term/aaep-term/transport"
)

// RecheckOptions say how a receipt's tests are run again.
type RecheckOptions struct {
	// Producer is the base of the options the tests run with (tokens,
	// headers, TLS, Fast); Endpoint, Level, Only and Seed are set here.
	Producer ProducerOptions
	// Endpoint, if not empty, is tested instead of the receipt's own.
	Endpoint string
	// Count is how many tests to re-run; zero means about a third of the
	// receipt's, at least one.
	Count int
	// Rand picks the tests and their order; nil means a random source.
	Rand *rand.Rand
	// Catalogue is the tests we know; nil means ProducerTests.
	Catalogue []Test
	// Run runs the tests; nil means TestProducer.
	Run func(context.Context, ProducerOptions) (*Report, error)
}

// Recheck is what running some of a receipt's tests again found.
type Recheck struct {
	Endpoint string         `json:"endpoint"`
	Seed     uint64         `json:"seed"`
	Checked  []RecheckEntry `json:"checked"`
	Agree    bool           `json:"agree"` // every test re-run as the receipt says
}

// RecheckEntry is one test re-run.
type RecheckEntry struct {
	ID      string `json:"id"`
	Receipt Status `json:"receipt"`
	Now     Status `json:"now"`
	Detail  string `json:"detail,omitempty"` // why, now
	Agrees  bool   `json:"agrees"`
}

// recheckBindings are the bindings a receipt may send a recheck to: a
// receipt is someone else's words, so never a command (exec:, acp:) or a
// file.
var recheckBindings = []transport.Binding{transport.BindingSSE, transport.BindingWebSocket, transport.BindingGRPC, transport.BindingUnix}

// CheckRecheckEndpoint refuses an endpoint a recheck must not reach: a
// command to run or a file to read, which a receipt could name to make its
// verifier run or read something.
func CheckRecheckEndpoint(endpoint string) error {
	if !slices.Contains(recheckBindings, transport.BindingOf(endpoint)) {
		return fmt.Errorf("conform: a recheck reaches producers over the network or a Unix socket only (http, https, ws, wss, grpc, grpcs, unix), not %q", endpoint)
	}
	return nil
}

// RecheckReceipt re-runs a random subset of a producer receipt's tests
// against its endpoint (or o.Endpoint), their outcomes listed in random
// order, and compares each outcome with the receipt's. The producer is
// driven through the whole run either way (ProducerOptions.Only). Tests not in our catalogue are not run. An
// error means the recheck could not run.
func RecheckReceipt(ctx context.Context, rc *Receipt, o RecheckOptions) (*Recheck, error) {
	if rc.Role != RoleProducer {
		return nil, fmt.Errorf("conform: only a producer's receipt can be rechecked: a subscriber is run by whoever tests it")
	}
	endpoint := o.Endpoint
	if endpoint == "" {
		endpoint = rc.Implementation.Endpoint
	}
	if err := CheckRecheckEndpoint(endpoint); err != nil {
		return nil, err
	}
	known := map[string]bool{}
	catalogue := o.Catalogue
	if catalogue == nil {
		catalogue = ProducerTests()
	}
	for _, t := range catalogue {
		known[t.ID] = true
	}
	var ids []string
	want := map[string]Status{}
	for _, r := range rc.Results {
		if known[r.ID] {
			ids = append(ids, r.ID)
			want[r.ID] = r.Status
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("conform: none of the receipt's tests is in our catalogue, so none can be re-run")
	}
	rnd := o.Rand
	if rnd == nil {
		rnd = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	n := o.Count
	if n <= 0 {
		n = (len(ids) + 2) / 3
	}
	n = min(n, len(ids))
	rnd.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	ids = ids[:n]
	seed := rnd.Uint64() | 1 // never zero: zero means "in catalogue order"

	po := o.Producer
	po.Endpoint, po.Level, po.Only, po.Seed = endpoint, rc.LevelTested, ids, seed
	run := o.Run
	if run == nil {
		run = TestProducer
	}
	rep, err := run(ctx, po)
	if err != nil {
		return nil, err
	}
	got := map[string]Result{}
	for _, r := range rep.Results {
		got[r.ID] = r
	}
	out := &Recheck{Endpoint: endpoint, Seed: seed, Agree: true}
	for _, id := range ids {
		r, ok := got[id]
		e := RecheckEntry{ID: id, Receipt: want[id], Now: r.Status, Detail: r.Detail}
		if !ok {
			e.Now, e.Detail = Skip, "the suite did not run it"
		}
		e.Agrees = e.Now == e.Receipt
		out.Agree = out.Agree && e.Agrees
		out.Checked = append(out.Checked, e)
	}
	return out, nil
}
