package conform

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
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

// TargetRuns returns a function that makes a fresh run of our producer playing
// TargetScenarios, as aaep-conform target serves it: live, ending its
// streams once they have played, taking replies from pages of origins.
// logf, if not nil, takes the producer's log lines.
func TargetRuns(logf func(string, ...any), origins []string) (func() *producer.Producer, error) {
	scenarios, err := TargetScenarios()
	if err != nil {
		return nil, err
	}
	return func() *producer.Producer {
		return producer.New(producer.Options{Scenarios: scenarios, Speed: 1, EndWhenDone: true, Logf: logf, AllowOrigins: origins})
	}, nil
}

// TargetManifest is the manifest a run of newRun (see TargetRuns) serves, as
// one line of JSON.
func TargetManifest(newRun func() *producer.Producer) ([]byte, error) {
	p := newRun()
	defer p.Close()
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, protocol.PathManifest, nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("the target's manifest: status %d", rec.Code)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, rec.Body.Bytes()); err != nil {
		return nil, fmt.Errorf("the target's manifest: %w", err)
	}
	return compact.Bytes(), nil
}
