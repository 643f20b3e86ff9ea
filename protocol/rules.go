package protocol

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// rule is one schema node compiled for the fast decoder. Only the keywords
// our event schemas use are supported; compileRule refuses any other, so the
// fast path cannot silently ignore a rule the schema has.
type rule struct {
	typ       ruleType
	konst     any // string or bool; nil when absent
	enum      []string
	minLen    int // -1 when absent
	maxLen    int
	match     func(string) bool
	format    string // "uri", "date-time" or ""
	min, max  *float64
	prefix    []*rule
	items     *rule
	minItems  int
	maxItems  int
	unique    bool
	props     map[string]*rule
	names     []string // props' names, sorted: bit positions while checking an object
	list      []*rule  // props' rules in the order of names
	reqMask   uint64   // the bits of required's names
	anyMasks  []uint64 // the bits of each of anyOfReq's lists
	required  []string
	closed    bool  // additionalProperties: false
	values    *rule // additionalProperties: a schema
	minProps  int
	anyOfReq  [][]string
	oneOf     []*rule
	reference string // $ref to another file, resolved by the caller
	and       *rule  // another rule the value must also satisfy
}

// ruleType is a rule's "type" keyword, so that checking a value switches
// on a number rather than comparing strings.
type ruleType uint8

const (
	tAny     ruleType = iota // no type keyword (or not a single one)
	tString                  // "string"
	tInteger                 // "integer"
	tNumber                  // "number"
	tBoolean                 // "boolean"
	tObject                  // "object"
	tArray                   // "array"
	tOther                   // any other: left to the schema validator
)

func ruleTypeOf(name string) ruleType {
	switch name {
	case "":
		return tAny
	case "string":
		return tString
	case "integer":
		return tInteger
	case "number":
		return tNumber
	case "boolean":
		return tBoolean
	case "object":
		return tObject
	case "array":
		return tArray
	}
	return tOther
}

// eventRules is the fast form of one event type's schema (envelope included).
type eventRules struct {
	fields      [nField]*rule
	required    []field
	requiredSet fieldSet // required's fields
	// closed: a member at the top level that fields does not define is a
	// problem (a core type's unevaluatedProperties: false; spec section 7.2),
	// unless its name matches one of patterns and its value the pattern's rule.
	closed   bool
	patterns []patternRule
	// rejectDefault: an irreversible medium/high-risk confirmation must
	// default to reject (the one conditional rule of our schemas).
	rejectDefault bool
}

// patternRule is one of patternProperties: names it matches, and their rule.
type patternRule struct {
	match func(string) bool
	rule  *rule
}

// defines reports whether name is a top-level member of the type.
func (er *eventRules) defines(name string) bool {
	f := lookupField([]byte(name))
	return f != noField && er.fields[f] != nil
}

// ignoredKeywords carry no validation.
var ignoredKeywords = map[string]bool{"$schema": true, "$id": true, "title": true, "description": true, "default": true, "examples": true, "$comment": true}

func compileRule(v any, where string) (*rule, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: schema is not an object", where)
	}
	r := &rule{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1}
	for k, x := range m {
		var err error
		switch k {
		case "type":
			name, _ := x.(string)
			r.typ = ruleTypeOf(name)
		case "const":
			r.konst = x
		case "enum":
			for _, e := range x.([]any) {
				s, isStr := e.(string)
				if !isStr {
					return nil, fmt.Errorf("%s: non-string enum", where)
				}
				r.enum = append(r.enum, s)
			}
		case "minLength":
			r.minLen = int(x.(float64))
		case "maxLength":
			r.maxLen = int(x.(float64))
		case "pattern":
			r.match, err = matcher(x.(string))
		case "format":
			r.format = x.(string)
			if r.format != "uri" && r.format != "date-time" {
				err = fmt.Errorf("%s: unsupported format %q", where, r.format)
			}
		case "minimum":
			f := x.(float64)
			r.min = &f
		case "maximum":
			f := x.(float64)
			r.max = &f
		case "prefixItems":
			for i, p := range x.([]any) {
				pr, err := compileRule(p, fmt.Sprintf("%s/prefixItems/%d", where, i))
				if err != nil {
					return nil, err
				}
				r.prefix = append(r.prefix, pr)
			}
		case "items":
			r.items, err = compileRule(x, where+"/items")
		case "minItems":
			r.minItems = int(x.(float64))
		case "maxItems":
			r.maxItems = int(x.(float64))
		case "uniqueItems":
			r.unique = x.(bool)
		case "properties":
			r.props = map[string]*rule{}
			for name, p := range x.(map[string]any) {
				if r.props[name], err = compileRule(p, where+"/"+name); err != nil {
					return nil, err
				}
			}
		case "required":
			for _, n := range x.([]any) {
				r.required = append(r.required, n.(string))
			}
		case "additionalProperties":
			if b, isBool := x.(bool); isBool {
				if b {
					err = fmt.Errorf("%s: additionalProperties true is the default; leave it out", where)
				}
				r.closed = true
			} else {
				r.values, err = compileRule(x, where+"/additionalProperties")
			}
		case "minProperties":
			r.minProps = int(x.(float64))
		case "anyOf":
			for _, alt := range x.([]any) {
				am, _ := alt.(map[string]any)
				req, _ := am["required"].([]any)
				if len(am) != 1 || req == nil {
					return nil, fmt.Errorf("%s: only anyOf of required lists is supported", where)
				}
				var names []string
				for _, n := range req {
					names = append(names, n.(string))
				}
				r.anyOfReq = append(r.anyOfReq, names)
			}
		case "oneOf":
			for i, alt := range x.([]any) {
				ar, err := compileRule(alt, fmt.Sprintf("%s/oneOf/%d", where, i))
				if err != nil {
					return nil, err
				}
				r.oneOf = append(r.oneOf, ar)
			}
		case "$ref":
			r.reference = x.(string)
		case "$defs", "allOf":
			// Handled by compileEvent.
		default:
			if !ignoredKeywords[k] {
				err = fmt.Errorf("%s: keyword %q is not supported by the fast decoder", where, k)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	for name := range r.props {
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	if len(r.names) > 62 {
		return nil, fmt.Errorf("%s: too many properties for the fast decoder", where)
	}
	for _, name := range r.names {
		r.list = append(r.list, r.props[name])
	}
	// A name that is not a property has bit 63, which no member sets: a
	// list that needs it is never satisfied here, as before.
	for _, name := range r.required {
		r.reqMask |= 1 << r.propIndex(name)
	}
	for _, group := range r.anyOfReq {
		var m uint64
		for _, name := range group {
			m |= 1 << r.propIndex(name)
		}
		r.anyMasks = append(r.anyMasks, m)
	}
	return r, nil
}

// resolve replaces local "#/$defs/x" references with their rules.
func (r *rule) resolve(defs map[string]*rule) error {
	if r == nil {
		return nil
	}
	for name, p := range r.props {
		if p.reference != "" {
			d, ok := defs[strings.TrimPrefix(p.reference, "#/$defs/")]
			if !ok {
				return fmt.Errorf("unresolved reference %q", p.reference)
			}
			r.props[name] = d
			r.list[slices.Index(r.names, name)] = d
		}
		if err := p.resolve(defs); err != nil {
			return err
		}
	}
	return nil
}

// compileEvents builds the fast rules of every event schema from the
// embedded files: the envelope's rules, then each type's own on top.
func compileEvents() (envelope *eventRules, byType map[string]*eventRules, err error) {
	load := func(name string) (map[string]any, error) {
		b, err := schemaFiles.ReadFile("schemas/" + name + ".schema.json")
		if err != nil {
			return nil, err
		}
		var m map[string]any
		return m, json.Unmarshal(b, &m)
	}
	env, err := load("envelope")
	if err != nil {
		return nil, nil, err
	}
	defs := map[string]*rule{}
	for name, d := range env["$defs"].(map[string]any) {
		if defs[name], err = compileRule(d, "envelope/$defs/"+name); err != nil {
			return nil, nil, err
		}
	}
	envRule, err := compileRule(env, "envelope")
	if err != nil {
		return nil, nil, err
	}
	if err := envRule.resolve(defs); err != nil {
		return nil, nil, err
	}
	build := func(extra *rule, name string) (*eventRules, error) {
		er := &eventRules{}
		for _, r := range []*rule{envRule, extra} {
			if r == nil {
				continue
			}
			for prop, pr := range r.props {
				f := lookupField([]byte(prop))
				if f == noField {
					return nil, fmt.Errorf("%s: member %q has no decoder field", name, prop)
				}
				if er.fields[f] != nil && r == extra {
					pr = both(er.fields[f], pr)
				}
				er.fields[f] = pr
			}
			for _, req := range r.required {
				f := lookupField([]byte(req))
				if f == noField {
					return nil, fmt.Errorf("%s: required member %q has no decoder field", name, req)
				}
				if !slices.Contains(er.required, f) {
					er.required = append(er.required, f)
					er.requiredSet.add(f)
				}
			}
		}
		return er, nil
	}
	if envelope, err = build(nil, "envelope"); err != nil {
		return nil, nil, err
	}
	byType = map[string]*eventRules{}
	alike := map[string]*rule{} // a member's schema, as JSON → its one rule
	names, _ := schemaFiles.ReadDir("schemas")
	for _, e := range names {
		name := strings.TrimSuffix(e.Name(), ".schema.json")
		if !strings.HasPrefix(name, "agent.") {
			continue
		}
		doc, err := load(name)
		if err != nil {
			return nil, nil, err
		}
		// unevaluatedProperties is supported here only, at the top of an
		// event type's schema, where it closes the envelope and the type's
		// members together; compileRule refuses it anywhere else.
		closed := false
		if u, ok := doc["unevaluatedProperties"]; ok {
			if u != false {
				return nil, nil, fmt.Errorf("%s: only unevaluatedProperties false is supported by the fast decoder", name)
			}
			closed = true
			delete(doc, "unevaluatedProperties")
		}
		// patternProperties, likewise: at the top only, beside it.
		var patterns []patternRule
		if pp, ok := doc["patternProperties"].(map[string]any); ok {
			if !closed {
				return nil, nil, fmt.Errorf("%s: patternProperties without unevaluatedProperties false is not supported by the fast decoder", name)
			}
			for pattern, v := range pp {
				m, err := matcher(pattern)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: pattern %q: %w", name, pattern, err)
				}
				r, err := compileRule(v, name+"/patternProperties")
				if err != nil {
					return nil, nil, err
				}
				patterns = append(patterns, patternRule{match: m, rule: r})
			}
			if len(patterns) > 1 {
				return nil, nil, fmt.Errorf("%s: more than one of patternProperties is not supported by the fast decoder", name)
			}
			delete(doc, "patternProperties")
		}
		own, err := compileRule(doc, name)
		if err != nil {
			return nil, nil, err
		}
		er, err := build(own, name)
		if err != nil {
			return nil, nil, err
		}
		er.closed, er.patterns = closed, patterns
		shareAlike(er, doc, envelope, alike)
		all, _ := doc["allOf"].([]any)
		for _, a := range all[1:] {
			if !isRejectDefaultRule(a) {
				return nil, nil, fmt.Errorf("%s: allOf member not supported by the fast decoder", name)
			}
			er.rejectDefault = true
		}
		byType["aaep:"+name] = er
	}
	return envelope, byType, nil
}

// shareAlike gives er's own members (not the envelope's) the rule another
// type compiled from the same schema, which alike holds by its JSON: a
// verdict (Decoder.verdicts) is kept under its rule, so a value that passed
// a member's rule in one type passes it in another without a check (the
// summaries of every type, the tool of invoked and completed). A schema
// with a reference is left its own: it may mean another definition in
// each file.
func shareAlike(er *eventRules, doc map[string]any, envelope *eventRules, alike map[string]*rule) {
	props, _ := doc["properties"].(map[string]any)
	for prop, schema := range props {
		f := lookupField([]byte(prop))
		if f == noField || envelope.fields[f] != nil || er.fields[f] == nil {
			continue
		}
		b, err := json.Marshal(schema) // sorted keys: alike schemas, alike JSON
		if err != nil || strings.Contains(string(b), `"$ref"`) {
			continue
		}
		if r, ok := alike[string(b)]; ok {
			er.fields[f] = r
		} else {
			alike[string(b)] = er.fields[f]
		}
	}
}

// both is own with env also applying: a type narrowing an envelope member
// (its const type or urgency) keeps the envelope's rule for it.
func both(env, own *rule) *rule {
	c := *own
	c.and = env
	return &c
}

// isRejectDefaultRule recognizes the confirmation schema's if/then: when
// irreversible is true and risk_level is medium or high, default_decision
// must be reject.
func isRejectDefaultRule(v any) bool {
	b, _ := json.Marshal(v)
	s := string(b)
	return strings.Contains(s, `"if"`) && strings.Contains(s, `"irreversible":{"const":true}`) &&
		strings.Contains(s, `"default_decision":{"const":"reject"}`) && strings.Contains(s, `"medium","high"`)
}

// matcher returns a fast matcher for the patterns our schemas use, or a
// regexp for any other.
func matcher(pattern string) (func(string) bool, error) {
	if f := knownPatterns[pattern]; f != nil {
		return f, nil
	}
	if f := variantMatcher(pattern); f != nil {
		return f, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}

// knownPatterns are hand-written equivalents of the schemas' regular
// expressions; a test checks each against regexp.
var knownPatterns = map[string]func(string) bool{
	`^evt_[A-Za-z0-9]{1,64}$`:                             prefixedID("evt_"),
	`^sess_[A-Za-z0-9]{1,64}$`:                            prefixedID("sess_"),
	`^call_[A-Za-z0-9]{1,64}$`:                            prefixedID("call_"),
	`^out_[A-Za-z0-9]{1,64}$`:                             prefixedID("out_"),
	`^rpl_[A-Za-z0-9]{1,64}$`:                             prefixedID("rpl_"),
	`^sub_[A-Za-z0-9]{1,64}$`:                             prefixedID("sub_"),
	`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`:                 isLanguageTag,
	`^[A-Za-z_][A-Za-z0-9_.-]{0,255}$`:                    isToolName,
	`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.-]+)?$`:          isVersion,
	`^[A-Z][a-z]{3}$`:                                     isScript,
	`^[A-Z][A-Z0-9_]{1,63}$`:                              isErrorCode,
	`^[a-z][a-z0-9_]{1,63}$`:                              isReasonCode,
	`^[a-zA-Z][a-zA-Z0-9.+_-]*/[a-zA-Z][a-zA-Z0-9.+_-]*$`: isMediaType,
	`^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`:    isCompactJWS,
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return alnumByte[c] }

// alnumByte is isAlpha || isDigit of every byte: one load where the two
// tests were a call a byte (an event's and a session's ID are read through
// it, forty bytes an event).
var alnumByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isAlpha(byte(c)) || isDigit(byte(c))
	}
	return t
}()

func prefixedID(prefix string) func(string) bool {
	return func(s string) bool {
		if len(s) <= len(prefix) || len(s) > len(prefix)+64 || s[:len(prefix)] != prefix {
			return false
		}
		return allAlnum(s[len(prefix):])
	}
}

// allAlnum reports whether every byte of s is an ASCII letter or digit
// (isAlnum), eight at a time while eight remain: an event's and a
// session's ID are forty such bytes an event.
func allAlnum(s string) bool {
	i := 0
	for ; i <= len(s)-8; i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if !alnum8(x) {
			return false
		}
	}
	for ; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

// alnum8 reports whether the eight bytes of x are all ASCII letters or
// digits. In lanes under 0x80, adding 0x80-lo sets a lane's top bit when
// its byte is lo or above, and adding 0x7f-hi when it is above hi; no sum
// passes 0xff, so no lane carries into the next.
func alnum8(x uint64) bool {
	if x&lanesHigh != 0 {
		return false
	}
	digit := (x + (0x80-'0')*lanes1) &^ (x + (0x7f-'9')*lanes1)
	y := x | 0x20*lanes1 // letters of either case, as isAlpha
	letter := (y + (0x80-'a')*lanes1) &^ (y + (0x7f-'z')*lanes1)
	return (digit|letter)&lanesHigh == lanesHigh
}

// isLanguageTag matches the schemas' loose BCP 47 shape: letters, then
// hyphen-separated letters or digits, 1 to 8 per part.
func isLanguageTag(s string) bool {
	n, first := 0, true
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '-' {
			if n < 1 || n > 8 {
				return false
			}
			n, first = 0, false
			continue
		}
		if !isAlpha(s[i]) && (first || !isDigit(s[i])) {
			return false
		}
		n++
	}
	return true
}

func isToolName(s string) bool {
	if len(s) == 0 || len(s) > 256 || !(isAlpha(s[0]) || s[0] == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isVersion(s string) bool {
	for part := 0; part < 3; part++ {
		n := 0
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		if n == 0 {
			return false
		}
		s = s[n:]
		if part < 2 {
			if len(s) == 0 || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
	}
	if s == "" {
		return true
	}
	if s[0] != '-' || len(s) == 1 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isScript(s string) bool {
	return len(s) == 4 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'a' && s[1] <= 'z' && s[2] >= 'a' && s[2] <= 'z' && s[3] >= 'a' && s[3] <= 'z'
}

func isErrorCode(s string) bool {
	if len(s) < 2 || len(s) > 64 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z') && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

func isReasonCode(s string) bool {
	if len(s) < 2 || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z') && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

func isMediaType(s string) bool {
	typ, sub, ok := strings.Cut(s, "/")
	part := func(p string) bool {
		if p == "" || !isAlpha(p[0]) {
			return false
		}
		for i := 1; i < len(p); i++ {
			if c := p[i]; !isAlnum(c) && !strings.ContainsRune(".+_-", rune(c)) {
				return false
			}
		}
		return true
	}
	return ok && part(typ) && part(sub)
}

func isCompactJWS(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
		for i := 0; i < len(p); i++ {
			if c := p[i]; !isAlnum(c) && c != '_' && c != '-' {
				return false
			}
		}
	}
	return true
}
