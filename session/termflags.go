package session

import (
	"github.com/aaep-term/aaep-term/internal/userdir"
)

// Patterns reads comma-separated event type patterns as the user types
// them (List, then Pattern on each).
func Patterns(s string) []string {
	l := List(s)
	for i, p := range l {
		l[i] = Pattern(p)
	}
	return l
}

// UserSubscriberID is SubscriberID for the user and config directory
// (internal/userdir) the environment getenv reads names: $USER, else
// $LOGNAME. Without a config directory the id still names the user.
func UserSubscriberID(getenv func(string) string) string {
	dir, _ := userdir.Dir(getenv)
	user := getenv("USER")
	if user == "" {
		user = getenv("LOGNAME")
	}
	return SubscriberID(dir, user)
}
