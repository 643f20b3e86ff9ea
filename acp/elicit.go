package acp

// This file puts the agent's questions (elicitation/create) to the user.
// A form becomes one AAEP clarification a field, in the schema's order;
// each answer is checked against its field's schema before the next is
// asked, and the whole form goes to the agent only once every field is
// answered. A form asking for an address to be opened (URL mode) is said
// with its address and declined: the bridge opens nothing.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/internal/wire"
	"github.com/aaep-term/aaep-term/protocol"
)

// Bounds of one form.
const (
	maxFields  = 32 // fields of one form; a longer form is refused
	maxChoices = 32 // choices AAEP lets a clarification list
)

// elicitRequest is an elicitation/create request's params.
type elicitRequest struct {
	SessionID string          `json:"sessionId"`
	Mode      string          `json:"mode"`
	Message   string          `json:"message"`
	URL       string          `json:"url"`
	Schema    json.RawMessage `json:"requestedSchema"`
}

// elicitation is a form the user is filling in.
type elicitation struct {
	id      json.RawMessage // the JSON-RPC request's id
	message string
	fields  []field
	next    int            // the field asked now
	content map[string]any // the answers so far, by key
	expiry  *time.Timer
}

// field is one field of a form, as its schema says.
type field struct {
	key, title, description string
	typ                     string // string, number, integer, boolean, array
	required                bool
	choices                 []choice // an enum's values and labels
	min, max                *float64 // numbers
	minLen, maxLen          *int     // strings' characters, arrays' items
	pattern                 *regexp.Regexp
	format                  string
}

// choice is one of a field's values, as a clarification lists it.
type choice struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// fieldSchema is the part of a field's schema the bridge reads.
type fieldSchema struct {
	Type        string            `json:"type"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Enum        []json.RawMessage `json:"enum"`
	EnumNames   []string          `json:"enumNames"`
	OneOf       []constOption     `json:"oneOf"`
	AnyOf       []constOption     `json:"anyOf"`
	Items       *fieldSchema      `json:"items"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
	MinLength   *int              `json:"minLength"`
	MaxLength   *int              `json:"maxLength"`
	MinItems    *int              `json:"minItems"`
	MaxItems    *int              `json:"maxItems"`
	Pattern     string            `json:"pattern"`
	Format      string            `json:"format"`
}

type constOption struct {
	Const json.RawMessage `json:"const"`
	Title string          `json:"title"`
}

// elicit answers an elicitation/create request: a form is put to the user
// a field at a time; anything else is answered at once and said.
func (b *Bridge) elicit(ag *agent, m *wire.Message) {
	var req elicitRequest
	if json.Unmarshal(m.Params, &req) != nil {
		b.report("bad-elicitation", "Refused a question from the agent that could not be read.")
		_ = ag.write(wire.Fail(m.ID, wire.CodeInvalidParams, "the elicitation request could not be read", nil))
		return
	}
	message := clip(strings.TrimSpace(req.Message), 4000)
	if req.Mode == "url" || (req.URL != "" && len(req.Schema) == 0) {
		b.say("The agent asks you to open an address in a browser: " + clip(protocol.Line(req.URL), 2000) +
			" (" + clip(protocol.Line(message), 500) + "). aaep-term opens no address; the agent was told no. Open it yourself only if you trust it.")
		_ = ag.write(wire.Result(m.ID, []byte(`{"action":"decline"}`)))
		return
	}
	cancel := func(why string) {
		b.say("The agent asked a question, and was told it was cancelled: " + why + " The question: " + clip(protocol.Line(message), 300))
		_ = ag.write(wire.Result(m.ID, []byte(`{"action":"cancel"}`)))
	}
	fields, err := formFields(req.Schema)
	if err != nil {
		cancel(err.Error())
		return
	}
	b.emitMu.Lock()
	defer b.emitMu.Unlock()
	b.mu.Lock()
	switch {
	case b.noClarify:
		b.mu.Unlock()
		cancel("the listener takes no answers to questions.")
		return
	case req.SessionID != b.session || len(b.elicits) >= maxPending:
		b.mu.Unlock()
		cancel("too many wait already, or it names another session.")
		return
	}
	e := &elicitation{id: m.ID, message: nonEmpty(message, "The agent asks you a question."), fields: fields, content: map[string]any{}}
	msgs := append(b.ensureSession(), b.ask(e))
	b.mu.Unlock()
	b.queue(msgs)
}

// ask builds the clarification for e's next field, under a new reply
// token. b.mu is held.
func (b *Bridge) ask(e *elicitation) []byte {
	token := "rpl_" + randomID(16)
	window := b.window()
	if e.expiry != nil {
		e.expiry.Stop()
	}
	e.expiry = time.AfterFunc(time.Duration(window)*time.Second, func() { b.elicitExpired(token) })
	b.elicits[token] = e
	fields := map[string]any{"reply_token": token, "timeout_seconds": window}
	if len(e.fields) == 0 { // a message with nothing to fill in: go on, or not
		fields["question"] = e.message
		fields["accepted_response_kinds"] = []string{"yes_no"}
		fields["context"] = "Answer yes to tell the agent to go on, no to decline."
		fields["summary_normal"] = b.who() + " asks: " + e.message
		return b.event(protocol.TypeAwaitingClarify, protocol.UrgencyCritical, fields)
	}
	f := e.fields[e.next]
	question := e.message
	what := f.title
	if f.description != "" && what != "" {
		what += ": "
	}
	what += f.description
	if what == "" && len(e.fields) > 1 {
		what = f.key
	}
	if what != "" {
		question = sentence(question) + " " + sentence(what)
	}
	var kinds []string
	switch {
	case f.listed():
		kinds = append(kinds, "multiple_choice")
		fields["choices"] = f.choices
	case f.typ == "boolean":
		kinds = append(kinds, "yes_no")
	case f.typ == "number" || f.typ == "integer":
		kinds = append(kinds, "numeric")
	}
	if len(kinds) == 0 || !f.required {
		kinds = append(kinds, "freetext") // "-" leaves an optional field out
	}
	fields["question"] = question
	fields["accepted_response_kinds"] = kinds
	fields["context"] = e.hint(f)
	fields["summary_normal"] = b.who() + " asks: " + question
	return b.event(protocol.TypeAwaitingClarify, protocol.UrgencyCritical, fields)
}

// hint says what field f takes, as words for the clarification's context.
func (e *elicitation) hint(f field) string {
	var parts []string
	if len(e.fields) > 1 {
		parts = append(parts, fmt.Sprintf("Field %d of %d of the agent's form.", e.next+1, len(e.fields)))
	}
	if f.listed() {
		parts = append(parts, "Choose one.") // the clarification lists the choices
	} else {
		parts = append(parts, f.takes())
	}
	if !f.required {
		parts = append(parts, "Answer - to leave it out.")
	}
	return strings.Join(parts, " ")
}

// listed reports whether f's choices are a clarification's choices.
func (f field) listed() bool {
	return len(f.choices) >= 2 && len(f.choices) <= maxChoices && f.typ != "array"
}

// takes says in words what answers f takes.
func (f field) takes() string {
	var s string
	switch {
	case f.typ == "array":
		s = "Choose from " + labels(f.choices) + ", separated by commas"
	case len(f.choices) > 0:
		s = "Choose one of " + labels(f.choices)
	case f.typ == "boolean":
		s = "Answer yes or no"
	case f.typ == "integer":
		s = "A whole number"
	case f.typ == "number":
		s = "A number"
	default:
		s = "Text"
		if f.format != "" {
			s += " (" + clip(f.format, 40) + ")"
		}
	}
	if f.typ == "number" || f.typ == "integer" {
		if f.min != nil {
			s += " from " + num(*f.min)
		}
		if f.max != nil {
			s += " up to " + num(*f.max)
		}
	}
	if f.typ == "string" && len(f.choices) == 0 {
		if f.minLen != nil {
			s += fmt.Sprintf(", at least %s", count(*f.minLen, "character"))
		}
		if f.maxLen != nil {
			s += fmt.Sprintf(", at most %s", count(*f.maxLen, "character"))
		}
	}
	return s + "."
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func labels(cs []choice) string {
	var ls []string
	for i, c := range cs {
		if i == 12 {
			ls = append(ls, fmt.Sprintf("and %d more", len(cs)-12))
			break
		}
		ls = append(ls, c.Label)
	}
	return strings.Join(ls, ", ")
}

// clarified takes the user's answer to a form's field: checked against the
// field's schema; a wrong answer is said and the field asked again; the
// last field's answer sends the form.
func (b *Bridge) clarified(token string, raw json.RawMessage) error {
	b.emitMu.Lock()
	defer b.emitMu.Unlock()
	b.mu.Lock()
	e, ok := b.elicits[token]
	if !ok {
		b.mu.Unlock()
		return fmt.Errorf("acp: no question waits for the reply token %q", clip(protocol.Line(token), 80))
	}
	delete(b.elicits, token)
	e.expiry.Stop()
	var answer any
	_ = json.Unmarshal(raw, &answer)
	var result []byte
	var msgs [][]byte
	var wrong string
	if len(e.fields) == 0 {
		result = []byte(`{"action":"decline"}`)
		if yes, _ := yesNoValue(answer); yes {
			result = []byte(`{"action":"accept","content":{}}`)
		}
	} else if v, skip, err := e.fields[e.next].check(answer); err != nil {
		wrong = "Your answer does not fit the agent's question: " + err.Error() + " It is asked again."
		msgs = append(msgs, b.ask(e))
	} else {
		if !skip {
			e.content[e.fields[e.next].key] = v
		}
		e.next++
		if e.next < len(e.fields) {
			msgs = append(msgs, b.ask(e))
		} else {
			result, _ = json.Marshal(map[string]any{"action": "accept", "content": e.content})
		}
	}
	ag := b.ag
	b.mu.Unlock()
	if wrong != "" {
		b.say(wrong)
	}
	b.queue(msgs)
	if result != nil {
		return ag.write(wire.Result(e.id, result))
	}
	return nil
}

// elicitExpired cancels a question nobody answered in its window.
func (b *Bridge) elicitExpired(token string) {
	b.elicitGone(token, "Nobody answered the agent's question in time; it was told the question was cancelled.")
}

// elicitGone cancels the question of token, if it still waits, and says
// why.
func (b *Bridge) elicitGone(token, why string) {
	b.mu.Lock()
	e, ok := b.elicits[token]
	delete(b.elicits, token)
	ag := b.ag
	b.mu.Unlock()
	if ok {
		if e.expiry != nil {
			e.expiry.Stop()
		}
		b.say(why)
		_ = ag.write(wire.Result(e.id, []byte(`{"action":"cancel"}`)))
	}
}

// takeElicitations removes and returns the questions waiting. b.mu is
// held.
func (b *Bridge) takeElicitations() []*elicitation {
	var es []*elicitation
	for tok, e := range b.elicits {
		e.expiry.Stop()
		es = append(es, e)
		delete(b.elicits, tok)
	}
	return es
}

func cancelledElicitation(id json.RawMessage) []byte {
	return wire.Result(id, []byte(`{"action":"cancel"}`))
}

// formFields reads a requested schema: an object of fields of simple
// types, in the order the agent wrote them.
func formFields(raw json.RawMessage) ([]field, error) {
	var schema struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, errors.New("its form could not be read.")
	}
	if schema.Type != "" && schema.Type != "object" {
		return nil, errors.New("its form is not an object of fields.")
	}
	keys, raws, err := orderedObject(schema.Properties)
	if err != nil {
		return nil, errors.New("its form's fields could not be read.")
	}
	if len(keys) > maxFields {
		return nil, fmt.Errorf("its form has %d fields; this bridge asks at most %d.", len(keys), maxFields)
	}
	var fields []field
	for i, k := range keys {
		var s fieldSchema
		if json.Unmarshal(raws[i], &s) != nil {
			return nil, fmt.Errorf("its field %q could not be read.", clip(protocol.Line(k), 80))
		}
		f, err := newField(k, s)
		if err != nil {
			return nil, err
		}
		for _, r := range schema.Required {
			f.required = f.required || r == k
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// newField reads one field's schema.
func newField(key string, s fieldSchema) (field, error) {
	f := field{key: key, typ: s.Type, title: clip(s.Title, 500), description: clip(s.Description, 1000),
		min: s.Minimum, max: s.Maximum, minLen: s.MinLength, maxLen: s.MaxLength, format: s.Format}
	opts := s
	switch s.Type {
	case "string", "number", "integer", "boolean":
	case "array":
		if s.Items == nil {
			return f, fmt.Errorf("its field %q is a list of nothing named.", clip(protocol.Line(key), 80))
		}
		opts = *s.Items
		f.minLen, f.maxLen = s.MinItems, s.MaxItems
	default:
		return f, fmt.Errorf("its field %q is of a type this bridge cannot ask (%s).", clip(protocol.Line(key), 80), clip(protocol.Line(s.Type), 40))
	}
	if s.Pattern != "" {
		if re, err := regexp.Compile(s.Pattern); err == nil {
			f.pattern = re
		}
	}
	for i, v := range opts.Enum {
		label := ""
		if i < len(opts.EnumNames) {
			label = opts.EnumNames[i]
		}
		f.choices = appendChoice(f.choices, v, label)
	}
	for _, o := range append(opts.OneOf, opts.AnyOf...) {
		f.choices = appendChoice(f.choices, o.Const, o.Title)
	}
	if f.typ == "array" && len(f.choices) == 0 {
		return f, fmt.Errorf("its field %q is a list with no choices named.", clip(protocol.Line(key), 80))
	}
	return f, nil
}

// appendChoice adds an enum's value, a string, with its label.
func appendChoice(cs []choice, raw json.RawMessage, label string) []choice {
	var v string
	if json.Unmarshal(raw, &v) != nil || v == "" || len(v) > 256 {
		return cs
	}
	for _, c := range cs {
		if c.Value == v {
			return cs
		}
	}
	return append(cs, choice{Value: v, Label: clip(nonEmpty(label, v), 1024)})
}

// orderedObject returns a JSON object's keys and values in their order.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("not an object")
	}
	var keys []string
	var vals []json.RawMessage
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	return keys, vals, nil
}

// check returns the value answer gives field f, or why it does not fit;
// skip when the user left an optional field out ("-").
func (f field) check(answer any) (v any, skip bool, err error) {
	if s, ok := answer.(string); ok && strings.TrimSpace(s) == "-" {
		if f.required {
			return nil, false, errors.New("this field is required.")
		}
		return nil, true, nil
	}
	switch f.typ {
	case "boolean":
		yes, ok := yesNoValue(answer)
		if !ok {
			return nil, false, errors.New("answer yes or no.")
		}
		return yes, false, nil
	case "number", "integer":
		n, ok := answer.(float64)
		if s, isText := answer.(string); isText {
			p, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
			n, ok = p, perr == nil
		}
		switch {
		case !ok || math.IsNaN(n) || math.IsInf(n, 0):
			return nil, false, errors.New("answer a number.")
		case f.typ == "integer" && n != math.Trunc(n):
			return nil, false, errors.New("answer a whole number.")
		case f.min != nil && n < *f.min, f.max != nil && n > *f.max:
			return nil, false, errors.New(strings.TrimSuffix(f.takes(), ".") + " is wanted.")
		}
		if f.typ == "integer" {
			return int64(n), false, nil
		}
		return n, false, nil
	case "array":
		s, _ := answer.(string)
		var picked []string
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			c, ok := pick(f.choices, part)
			if !ok {
				return nil, false, fmt.Errorf("%q is not one of the choices.", clip(part, 80))
			}
			picked = append(picked, c)
		}
		if (f.minLen != nil && len(picked) < *f.minLen) || (f.maxLen != nil && len(picked) > *f.maxLen) || (len(picked) == 0 && f.required) {
			return nil, false, errors.New("choose as many as the question says.")
		}
		return picked, false, nil
	}
	s, ok := answer.(string)
	if !ok {
		return nil, false, errors.New("answer in words.")
	}
	if len(f.choices) > 0 {
		c, ok := pick(f.choices, strings.TrimSpace(s))
		if !ok {
			return nil, false, errors.New("answer one of the choices.")
		}
		return c, false, nil
	}
	n := utf8.RuneCountInString(s)
	switch {
	case f.minLen != nil && n < *f.minLen, f.maxLen != nil && n > *f.maxLen:
		return nil, false, errors.New(strings.TrimSuffix(f.takes(), ".") + " is wanted.")
	case f.pattern != nil && !f.pattern.MatchString(s):
		return nil, false, errors.New("the answer is not in the form the agent asks for.")
	case !formatFits(f.format, s):
		return nil, false, fmt.Errorf("the answer is not %s.", clip(f.format, 40))
	}
	return s, false, nil
}

// pick finds the choice meant: its value or label, letter case aside, or
// its number.
func pick(cs []choice, in string) (string, bool) {
	if i, err := strconv.Atoi(in); err == nil && i >= 1 && i <= len(cs) {
		return cs[i-1].Value, true
	}
	for _, c := range cs {
		if strings.EqualFold(in, c.Value) || strings.EqualFold(in, c.Label) {
			return c.Value, true
		}
	}
	return "", false
}

// formatFits checks the formats a form may name: email, uri, date,
// date-time; others are taken as they come.
func formatFits(format, s string) bool {
	switch format {
	case "email":
		at := strings.LastIndex(s, "@")
		return at > 0 && at < len(s)-1 && !strings.ContainsAny(s, " \t")
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != ""
	case "date":
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		return err == nil
	}
	return true
}

// yesNoValue reads a yes or no answer.
func yesNoValue(answer any) (yes, ok bool) {
	switch v := answer.(type) {
	case bool:
		return v, true
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "yes", "y", "true":
			return true, true
		case "no", "n", "false":
			return false, true
		}
	}
	return false, false
}
