//go:build !unix

package safefile

// noFollow is not available here; the Lstat check before opening refuses links.
const noFollow = 0
