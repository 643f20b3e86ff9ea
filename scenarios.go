// Package aaepterm holds the files built into the commands: the demo
// producer's scenarios from testdata/scenarios.
package aaepterm

import "embed"

// Scenarios is the demo producer's scenario directory, read-only.
//
//go:embed testdata/scenarios/*.json
var Scenarios embed.FS
