package producer

// This file holds what a browser on another origin may do (CORS): read
// event streams and subscribe where Options.AllowOrigins lets it, and
// answer prompts only where that cannot be forged by any page the user
// happens to visit.

import (
	"net/http"
	"slices"
	"strings"

	"github.com/aaep-term/aaep-term/sigrpl"
)

// AnyOrigin in Options.AllowOrigins lets a page of any origin read the
// event streams and subscribe; its replies must still be signed.
const AnyOrigin = "*"

// corsMaxAge is how long, in seconds, a browser may keep a preflight's answer.
const corsMaxAge = "600"

// origin classes what the Origin header of r says about who sent it.
type origin int

const (
	originNone    origin = iota // no Origin header: not a page's script, or the same origin
	originSame                  // a page of the producer's own origin
	originNamed                 // a page of an origin AllowOrigins names
	originAny                   // a page of another origin, let in by AnyOrigin only
	originRefused               // a page of another origin, not let in
)

// originOf classes the Origin of r.
func (p *Producer) originOf(r *http.Request) (origin, string) {
	o := r.Header.Get("Origin")
	switch {
	case o == "":
		return originNone, ""
	case strings.EqualFold(o, "http://"+r.Host) || strings.EqualFold(o, "https://"+r.Host):
		return originSame, o
	case slices.ContainsFunc(p.opts.AllowOrigins, func(a string) bool { return strings.EqualFold(a, o) }):
		return originNamed, o
	case slices.Contains(p.opts.AllowOrigins, AnyOrigin):
		return originAny, o
	}
	return originRefused, o
}

// cors answers preflights and adds the CORS headers a page of an allowed
// origin needs; a page of another origin may send nothing but a GET, which
// it cannot read.
func (p *Producer) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		class, o := p.originOf(r)
		h := w.Header()
		if class != originNone {
			h.Add("Vary", "Origin")
		}
		if class == originNamed || class == originAny {
			h.Set("Access-Control-Allow-Origin", o)
			h.Set("Access-Control-Expose-Headers", "Location")
		}
		switch {
		case r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "":
			if class == originRefused {
				p.opts.Logf("producer: refused a preflight from %s", o)
				writeError(w, http.StatusForbidden, "this producer does not take requests from pages of "+o+" (see --allow-origin)")
				return
			}
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Last-Event-ID, "+sigrpl.Header)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		case r.Method != http.MethodGet && class == originRefused:
			// A form or a simple fetch from any page reaches a loopback
			// producer without a preflight: refuse it before it acts.
			p.opts.Logf("producer: refused %s %s from a page of %s", r.Method, r.URL.Path, o)
			writeError(w, http.StatusForbidden, "this producer does not take requests from pages of "+o+" (see --allow-origin)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// forgeable reports whether a reply posted by r might come from a page
// that read the stream without the user: a page let in by AnyOrigin only,
// with neither a reply signature nor the producer's token (which the
// authorization check has verified when there is one).
func (p *Producer) forgeable(r *http.Request) bool {
	class, _ := p.originOf(r)
	return class == originAny && r.Header.Get(sigrpl.Header) == "" && p.opts.Token == ""
}
