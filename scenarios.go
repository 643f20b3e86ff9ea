// Package aaepterm holds the files built into the commands: the demo
// producer's scenarios from testdata/scenarios.
package aaepterm

import (
	"embed"
	"fmt"

	"github.com/aaep-term/aaep-term/producer"
)

// Scenarios is the demo producer's scenario directory, read-only.
//
//go:embed testdata/scenarios/*.json
var Scenarios embed.FS

// DemoScenarios are the built-in scenarios that names names, in the order
// they are built in; all of them when names is empty. A name that is not
// built in is an error naming the ones that are.
func DemoScenarios(names []string) ([]producer.Scenario, error) {
	all, err := producer.LoadScenarios(Scenarios, "testdata/scenarios")
	if err != nil {
		return nil, fmt.Errorf("load the demo scenarios: %w", err)
	}
	if len(names) == 0 {
		return all, nil
	}
	return producer.SelectScenarios(all, names)
}
