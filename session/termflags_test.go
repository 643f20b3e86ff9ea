package session

import (
	"path/filepath"
	"testing"
)

// The subscriber id follows the config directory and the user the
// environment names, and nothing else.
func TestUserSubscriberID(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/cfg", "HOME": "/home/ada", "LOGNAME": "ada"}
	get := func(k string) string { return env[k] }
	if got, want := UserSubscriberID(get), SubscriberID(filepath.Join("/cfg", "aaep-term"), "ada"); got != want {
		t.Errorf("id %q, want %q", got, want)
	}
}
