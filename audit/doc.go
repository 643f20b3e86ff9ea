// Package audit appends what happened to each prompt, and who decided it, to
// a JSON Lines file; reply tokens are stored only as SHA-256 hashes.
package audit
