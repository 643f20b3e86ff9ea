package conform

import (
	"embed"
	"fmt"

	"github.com/aaep-term/aaep-term/producer"
)

// targetFiles are the scenarios that give every producer test something to
// judge: three confirmations of an irreversible payment (accepted, rejected,
// left to time out after one second), a clarification, a session that
// errs, and a last confirmation left waiting when the suite closes.
//
//go:embed testdata/scenarios/*.json
var targetFiles embed.FS

// TargetScenarios returns the scenarios, in the order the producer tests
// expect them, for our producer to play as a conformance target (a full
// Level 3 run passes against them on every binding).
func TargetScenarios() ([]producer.Scenario, error) {
	all, err := producer.LoadScenarios(targetFiles, "testdata/scenarios")
	if err != nil {
		return nil, fmt.Errorf("conform: the target scenarios: %w", err)
	}
	return all, nil
}
