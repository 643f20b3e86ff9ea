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
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	schemakind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaFiles are aaep-term's own JSON Schemas (draft 2020-12) for every
// core event type, the envelope, the handshake messages, both replies and
// the agent-tasks extension's messages.
//
//go:embed schemas/*.schema.json
var schemaFiles embed.FS

// SchemaFS returns the embedded schema files, one per message type, named
// "schemas/<type>.schema.json" (event types without their "aaep:" prefix,
// agent-tasks types with a dot for the colon: "agtask.task").
func SchemaFS() fs.FS { return schemaFiles }

// Schemas is the compiled set of embedded schemas. It is the slow, generic
// path of validation; [Decoder] uses it to explain what is wrong with an
// event and tests use it to keep the fast path honest. A Schemas is
// immutable and safe for concurrent use.
//
// The schema validator's form is compiled the first time it is needed (an
// invalid event, a handshake message, [Schemas.Check]): a stream of valid
// events never needs it, and compiling it takes about 45 ms and 7 MB.
type Schemas struct {
	names   map[string]bool // the types with a schema of their own, compact form
	printer *message.Printer

	// The fast decoder's form of the event schemas.
	fastEnvelope *eventRules
	fastByType   map[string]*eventRules

	judges map[string]judge // judgeOf of every type with a schema

	once sync.Once
	full *fullSchemas // set by once
}

// fullSchemas is the schema validator's form of every schema.
type fullSchemas struct {
	byType   map[string]*jsonschema.Schema // "aaep:agent.tool.invoked", "subscription.request", …
	envelope *jsonschema.Schema
	err      error // why they did not compile
}

// NewSchemas reads the embedded schemas and compiles the fast decoder's
// form of the event schemas; the schema validator's form is compiled when
// first needed.
func NewSchemas() (*Schemas, error) {
	files, err := fs.Glob(schemaFiles, "schemas/*.schema.json")
	if err != nil {
		return nil, err
	}
	s := &Schemas{names: make(map[string]bool, len(files)), printer: message.NewPrinter(language.English)}
	for _, f := range files {
		if name := schemaName(f); name != "envelope" {
			s.names[name] = true
		}
	}
	if s.fastEnvelope, s.fastByType, err = compileEvents(); err != nil {
		return nil, fmt.Errorf("protocol: fast decoder: %w", err)
	}
	s.judges = make(map[string]judge, len(s.names))
	for name := range s.names {
		s.judges[name] = s.judge(name)
	}
	return s, nil
}

// schemaName is the type a schema file is for, in compact form
// ("aaep:agent.tool.invoked", "subscription.request", "agtask:task"), or
// "envelope". A file name has no colon: the prefix is its first word.
func schemaName(file string) string {
	name := strings.TrimSuffix(path.Base(file), ".schema.json")
	switch {
	case strings.HasPrefix(name, "agent."):
		return "aaep:" + name
	case strings.HasPrefix(name, TasksPrefix+"."):
		return TasksPrefix + ":" + name[len(TasksPrefix)+1:]
	}
	return name
}

// compiled returns the schema validator's form of the schemas, compiling
// them on the first call.
func (s *Schemas) compiled() *fullSchemas {
	s.once.Do(func() { s.full = compileFull() })
	return s.full
}

// compileFull compiles every embedded schema for the schema validator.
func compileFull() *fullSchemas {
	fail := func(err error) *fullSchemas { return &fullSchemas{err: err} }
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	files, err := fs.Glob(schemaFiles, "schemas/*.schema.json")
	if err != nil {
		return fail(err)
	}
	ids := make(map[string]string, len(files))
	for _, f := range files {
		b, err := schemaFiles.ReadFile(f)
		if err != nil {
			return fail(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return fail(fmt.Errorf("protocol: schema %s: %w", f, err))
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		if err := c.AddResource(id, doc); err != nil {
			return fail(fmt.Errorf("protocol: schema %s: %w", f, err))
		}
		ids[schemaName(f)] = id
	}
	full := &fullSchemas{byType: make(map[string]*jsonschema.Schema, len(ids))}
	for name, id := range ids {
		sch, err := c.Compile(id)
		if err != nil {
			return fail(fmt.Errorf("protocol: compile schema %s: %w", name, err))
		}
		if name == "envelope" {
			full.envelope = sch
		} else {
			full.byType[name] = sch
		}
	}
	if full.envelope == nil {
		return fail(errors.New("protocol: the envelope schema is missing"))
	}
	return full
}

// Has reports whether typ (compact form) has a schema of its own.
func (s *Schemas) Has(typ string) bool { return s.names[typ] }

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
	full := s.compiled()
	if full.err != nil {
		return []Problem{{Message: full.err.Error()}}
	}
	j := s.judgeOf(typ)
	var out []Problem
	if err := full.schema(j).Validate(m); err != nil {
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
	typ         string      // the type whose own schema judges, or "" for the envelope
	fast        *eventRules // the decoder's form; nil for handshake and reply messages
	unknownCore bool        // an "aaep:" type that is no core event type
}

// judgeOf chooses the schema of a normalized message type, by its kind
// (KindOf): its own schema when it has one, else the envelope. Both the
// decoder and the schema validator choose through it.
func (s *Schemas) judgeOf(typ string) judge {
	if j, ok := s.judges[typ]; ok {
		return j // one look-up for a type with a schema
	}
	return s.judge(typ)
}

// judge is judgeOf, worked out.
func (s *Schemas) judge(typ string) judge {
	if k := KindOf(typ); k != KindEvent {
		return judge{kind: k, typ: typ}
	}
	if s.names[typ] {
		return judge{kind: KindEvent, typ: typ, fast: s.fastByType[typ]}
	}
	return judge{kind: KindEvent, fast: s.fastEnvelope, unknownCore: strings.HasPrefix(typ, "aaep:")}
}

// schema is the schema validator's form of what j judges by.
func (f *fullSchemas) schema(j judge) *jsonschema.Schema {
	if j.typ == "" {
		return f.envelope
	}
	return f.byType[j.typ]
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
		case *schemakind.AdditionalProperties:
			// The validator lists them in its map's order: a report must
			// read the same from run to run.
			slices.Sort(k.Properties)
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
