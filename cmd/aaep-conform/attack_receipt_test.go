package main

import "github.com/aaep-term/aaep-term/conform"

// catalogueReport is report's report holding a result of status st for
// every test of our real producer catalogue up to level: a receipt names
// our catalogue, and verify refuses one that lacks any of its tests.
func catalogueReport(level conform.Level, st conform.Status) *conform.Report {
	r := report(level)
	for _, tt := range conform.ProducerTests() {
		if tt.Level <= level {
			r.Results = append(r.Results, conform.Result{Test: tt, Status: st, Detail: "detail " + hostile})
		}
	}
	return r
}
