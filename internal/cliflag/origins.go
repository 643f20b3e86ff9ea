package cliflag

import (
	"flag"
	"fmt"
	"net/url"
	"strings"
)

// Origins is the --allow-origin flag of a command that serves a producer:
// the origins whose browser pages may use it (producer.Options.AllowOrigins).
type Origins struct {
	List  []string // "*" for any origin; empty for none
	given bool
}

// Register adds --allow-origin to fs; def says its default in the help.
func (o *Origins) Register(fs *flag.FlagSet, def string) {
	fs.Var(o, "allow-origin", "browser pages of these `ORIGINS` (comma-separated, such as http://localhost:3000) may subscribe and answer prompts; * lets any page read the streams, with signed replies only; none lets no page in (default "+def+")")
}

// Or returns the origins given, or def when the flag was not given.
func (o *Origins) Or(def ...string) []string {
	if o.given {
		return o.List
	}
	return def
}

// String gives the origins as the flag takes them.
func (o *Origins) String() string {
	if o == nil || len(o.List) == 0 {
		return "none"
	}
	return strings.Join(o.List, ",")
}

// Set takes comma-separated origins: *, none, or scheme://host[:port] each.
func (o *Origins) Set(s string) error {
	o.List, o.given = nil, true
	if s == "none" || s == "" {
		return nil
	}
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSuffix(strings.TrimSpace(v), "/") // as pasted from an address bar
		if v != "*" {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" {
				return fmt.Errorf("%q is not an origin: give scheme://host[:port] as a page's address bar shows it (no path), * or none", v)
			}
		}
		o.List = append(o.List, v)
	}
	return nil
}
