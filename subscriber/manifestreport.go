package subscriber

// manifestreport.go: inspecting a producer's manifest without listening,
// and the report in plain lines.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/manifest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// ManifestReport is what InspectManifest learned of a producer's manifest.
// Its JSON form is a record for programs (the producer's strings in it are
// not yet sanitized: see line.CleanJSON).
type ManifestReport struct {
	Endpoint string           `json:"endpoint"`
	From     string           `json:"from,omitempty"` // where the manifest was found, or looked for
	Signed   bool             `json:"signed"`
	Verified bool             `json:"verified"`
	KID      string           `json:"kid,omitempty"`
	Alg      string           `json:"alg,omitempty"`
	Problems []string         `json:"problems,omitempty"` // where it disagrees with what the producer offered
	Error    string           `json:"error,omitempty"`
	Summary  string           `json:"summary"` // one sentence, as ManifestConfig.Words says it
	Manifest *manifest.Claims `json:"manifest,omitempty"`
}

// InspectManifest subscribes to endpoint just long enough to learn where
// its manifest is (Discover), then fetches it and checks it with m's keys.
// note says in words what the producer did when it was not an acceptance.
func InspectManifest(ctx context.Context, endpoint string, opts transport.Options, id session.Identity, m ManifestConfig) (rep ManifestReport, note string) {
	ep, err := transport.ParseEndpoint(endpoint)
	src, off, note := discover(ctx, ep, err, opts, id, m.Hints)
	if m.GRPCBinding == nil {
		m.GRPCBinding = opts.GRPCBinding
	}
	r := m.finder(ep).Find(ctx, src, off)
	rep = ManifestReport{
		Endpoint: endpoint, From: r.From, Signed: r.Signed, Verified: r.Verified, KID: r.KID, Alg: r.Alg,
		Problems: r.Problems, Summary: m.Words(r), Manifest: r.Claims,
	}
	if r.Err != nil {
		rep.Error = r.Err.Error()
	}
	return rep, note
}

// Lines is the report in plain lines, the producer's words sanitized: the
// summary, where the manifest was found (or looked for), what it claims,
// and where it disagrees with what the producer offered.
func (r ManifestReport) Lines() []string {
	lines := []string{r.Summary}
	switch {
	case r.From != "" && r.Manifest != nil:
		lines = append(lines, "Found: "+protocol.Line(r.From))
	case r.From != "":
		// Nothing usable came from there: it was looked for, not found.
		lines = append(lines, "Tried: "+protocol.Line(r.From))
	}
	m := r.Manifest
	if m == nil {
		return lines
	}
	if !r.Verified {
		lines = append(lines, "What it claims, not verified:")
	}
	claim := func(label string, values ...string) {
		var kept []string
		for _, v := range values {
			if v != "" {
				kept = append(kept, protocol.Name(v))
			}
		}
		if len(kept) == 0 {
			kept = []string{"not stated"}
		}
		lines = append(lines, label+": "+strings.Join(kept, ", "))
	}
	claim("Agent", m.AgentID)
	claim("Name", m.AgentName)
	claim("Version", m.AgentVersion)
	claim("AAEP versions", m.AAEPVersions...)
	levels := make([]string, len(m.ConformanceLevels))
	for i, l := range m.ConformanceLevels {
		levels[i] = fmt.Sprint(l)
	}
	claim("Conformance levels", levels...)
	claim("Transports", m.Transports...)
	claim("Languages", m.Languages...)
	claim("Event types", m.EventTypes...)
	caps := make([]string, 0, len(m.Capabilities))
	for k := range m.Capabilities {
		caps = append(caps, k)
	}
	sort.Strings(caps)
	claim("Capabilities", caps...)
	claim("Extensions", m.Extensions...)
	claim("Default verbosity", m.DefaultVerbosity)
	if m.Contact != "" {
		claim("Contact", m.Contact)
	}
	if m.Expires != 0 {
		claim("Expires", time.Unix(m.Expires, 0).UTC().Format(time.RFC3339))
	}
	for _, p := range r.Problems {
		lines = append(lines, "Disagrees: "+p)
	}
	return lines
}
