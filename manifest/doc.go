// Package manifest reads, finds and verifies a producer's manifest: what an
// agent claims about itself, inline, asked for, or at its well-known URI.
//
// Fetching over HTTP and reading trusted key files live here, so that the
// engine in package session stays pure. Whether a manifest's claims agree
// with a subscription is Claims.Check; every refusal is an *Error that says
// in words what was wrong.
package manifest
