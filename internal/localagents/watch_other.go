//go:build !linux

package localagents

import (
	"context"
	"errors"
)

// Watch needs inotify, so Linux; elsewhere it says so.
func Watch(ctx context.Context, dir string) (<-chan Change, error) {
	return nil, errors.New("localagents: finding local agents needs Linux (inotify); give their endpoints instead")
}
