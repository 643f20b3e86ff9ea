//go:build !race

package main

// raceBuild says whether the listener binary the tests run is built with
// the race detector: when the tests themselves are (go test -race).
const raceBuild = false
