package protocol

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	schemakind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaFiles are aaep-term's own JSON Schemas (draft 2020-12) for every
// core event type, the envelope, the handshake messages and both replies.
//
//go:embed schemas/*.schema.json
var schemaFiles embed.FS

// SchemaFS returns the embedded schema files, one per message type, named
// "schemas/<type>.schema.json" (event types without their "aaep:" prefix).
func SchemaFS() fs.FS { return schemaFiles }

// Schemas is the compiled set of embedded schemas. It is the slow, generic
// path of validation; [Decoder] uses it to explain what is wrong with an
// event and tests use it to keep the fast path honest. A Schemas is
// immutable and safe for concurrent use.
type Schemas struct {
	byType   map[string]*jsonschema.Schema // "aaep:agent.tool.invoked", "subscription.request", …
	envelope *jsonschema.Schema
	printer  *message.Printer

	// The fast decoder's form of the event schemas.
	fastEnvelope *eventRules
	fastByType   map[string]*eventRules
}

// NewSchemas compiles the embedded schemas.
func NewSchemas() (*Schemas, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	names, err := fs.Glob(schemaFiles, "schemas/*.schema.json")
	if err != nil {
		return nil, err
	}
	ids := make(map[string]string, len(names))
	for _, name := range names {
		b, err := schemaFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("protocol: schema %s: %w", name, err)
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		if err := c.AddResource(id, doc); err != nil {
			return nil, fmt.Errorf("protocol: schema %s: %w", name, err)
		}
		ids[strings.TrimSuffix(path.Base(name), ".schema.json")] = id
	}
	s := &Schemas{byType: make(map[string]*jsonschema.Schema, len(ids)), printer: message.NewPrinter(language.English)}
	for name, id := range ids {
		sch, err := c.Compile(id)
		if err != nil {
			return nil, fmt.Errorf("protocol: compile schema %s: %w", name, err)
		}
		switch {
		case name == "envelope":
			s.envelope = sch
		case strings.HasPrefix(name, "agent."):
			s.byType["aaep:"+name] = sch
		default:
			s.byType[name] = sch
		}
	}
	if s.envelope == nil {
		return nil, errors.New("protocol: the envelope schema is missing")
	}
	if s.fastEnvelope, s.fastByType, err = compileEvents(); err != nil {
		return nil, fmt.Errorf("protocol: fast decoder: %w", err)
	}
	return s, nil
}

// Has reports whether typ (compact form) has a schema of its own.
func (s *Schemas) Has(typ string) bool { _, ok := s.byType[typ]; return ok }

// Check validates one JSON message: an event (of a core type, or of an
// extension type against the envelope only), a handshake message or a
// reply, chosen by its "type". A full-URI core event type is normalized
// first. It returns nil or a *ValidationError listing every problem.
func (s *Schemas) Check(b []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return &SyntaxError{Msg: err.Error()}
	}
	if p := s.problems(v); len(p) > 0 {
		return &ValidationError{Problems: p}
	}
	return nil
}

// problems validates a value decoded by jsonschema.UnmarshalJSON.
func (s *Schemas) problems(v any) []Problem {
	m, ok := v.(map[string]any)
	if !ok {
		return []Problem{{Pointer: "", Message: "a message must be a JSON object"}}
	}
	typ, _ := m["type"].(string)
	if n := NormalizeType(typ); n != typ {
		c := make(map[string]any, len(m))
		for k, x := range m {
			c[k] = x
		}
		c["type"] = n
		m, typ = c, n
	}
	j := s.judgeOf(typ)
	var out []Problem
	if err := j.full.Validate(m); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return []Problem{{Message: err.Error()}}
		}
		out = s.leaves(ve, out)
		// When a member breaks the envelope, the validator counts none of
		// the envelope's members as evaluated: only members the type
		// really lacks are undefined.
		out = slices.DeleteFunc(out, func(p Problem) bool {
			return p.Code == ProblemUndefinedMember && j.fast != nil && j.fast.defines(p.Pointer[1:])
		})
	}
	if j.unknownCore {
		out = append(out, Problem{Pointer: "/type", Message: fmt.Sprintf("%q is not a core AAEP event type", typ)})
	}
	slices.SortStableFunc(out, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	return slices.Compact(out)
}

// judge is how messages of one type are judged.
type judge struct {
	kind        Kind
	full        *jsonschema.Schema // the schema validator's form
	fast        *eventRules        // the decoder's form; nil for handshake and reply messages
	unknownCore bool               // an "aaep:" type that is no core event type
}

// judgeOf chooses the schema of a normalized message type, by its kind
// (KindOf): its own schema when it has one, else the envelope. Both the
// decoder and the schema validator choose through it.
func (s *Schemas) judgeOf(typ string) judge {
	if k := KindOf(typ); k != KindEvent {
		return judge{kind: k, full: s.byType[typ]}
	}
	if full, ok := s.byType[typ]; ok {
		return judge{kind: KindEvent, full: full, fast: s.fastByType[typ]}
	}
	return judge{kind: KindEvent, full: s.envelope, fast: s.fastEnvelope, unknownCore: strings.HasPrefix(typ, "aaep:")}
}

// leaves flattens a jsonschema error tree to its leaf problems.
func (s *Schemas) leaves(e *jsonschema.ValidationError, out []Problem) []Problem {
	if len(e.Causes) == 0 {
		switch k := e.ErrorKind.(type) {
		case *schemakind.Required:
			// One problem per missing member, at the member's own pointer.
			for _, name := range k.Missing {
				out = append(out, Problem{Pointer: pointer(append(slices.Clip(e.InstanceLocation), name)), Message: "is missing; it is required here"})
			}
			return out
		case *schemakind.FalseSchema:
			// Only the core event schemas' unevaluatedProperties is false.
			if len(e.InstanceLocation) == 1 && strings.HasSuffix(e.SchemaURL, "/unevaluatedProperties") {
				return append(out, Problem{Pointer: pointer(e.InstanceLocation), Code: ProblemUndefinedMember,
					Message: "is not a member of this event type; extension data belongs in the extensions object (spec section 7.2)"})
			}
		}
		return append(out, Problem{Pointer: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(s.printer)})
	}
	for _, c := range e.Causes {
		out = s.leaves(c, out)
	}
	return out
}

// pointer renders an instance location as a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}
