// fill.go: filling the event of a message taken from a template from the
// template's event.

package protocol

import (
	"reflect"
	"time"
	"unsafe"
)

// A message taken from a template (fromTemplate) has the template's
// members, in its order, and the values of those not scanned are the
// template's bytes: populate would fill their fields with the values it
// filled the template's event with, strings of the same bytes. So a
// template keeps its event (keepEvent), its strings cut from a copy of
// its message that nothing changes (frozen: t.b is patched in place, and
// a DecodeInto caller fills its buffer again), and the event of a message
// taken from it, empty (newBox), is filled (fillFromTemplate):
//
//   - with the fields of the template's members that are not fresh,
//     copied from the template's event, leaf by leaf (t.leaves: its
//     strings, words, flags and times; a member with a slice or a pointer
//     is fresh);
//   - by populate, for the members scanned and those whose fields are
//     fresh: those that share memory with the event's room or its caller
//     (the context, the extensions, the flags, the lists, the raw objects:
//     refillFields) and those a patch changed to other strings (patchFrom
//     changes t.b, and the template's event keeps a frozen copy's strings:
//     see follow). The extensions not scanned are cut again from the
//     template's copy of them (extensionsFromTpl).
//
// A member scanned whose fields were also copied is filled over them,
// cleared first when populate might leave some (partialFields). An event
// so filled keeps the template's frozen copy alive, as it keeps its
// message alive (Raw); its strings share the copy's memory, not b's, with
// the same bytes.

// leaf is a field of Event (or of a struct in it) that copying a
// template's event copies: at off, of kind.
type leaf struct {
	off  uint16
	kind leafKind
}

// leafKind is how a leaf is copied.
type leafKind uint8

const (
	leafString leafKind = iota // a string (Text, Urgency...)
	leafWord                   // an int64 or float64
	leafFlag                   // a bool
	leafTime                   // a time.Time
	leafOther                  // anything else (slices, pointers): never copied
)

// leavesOf are, for each member, the leaves of Event that populate fills
// from it (found by copyMember from an Event whose every leaf is set).
var leavesOf = func() (out [nField][]leaf) {
	var all Event
	setAll(reflect.ValueOf(&all).Elem())
	for f := range nField {
		var one Event
		copyMember(&one, &all, f)
		out[f] = leavesSet(reflect.ValueOf(one), 0, nil)
	}
	return out
}()

// setAll sets every exported leaf of v (a struct) to a value not zero.
func setAll(v reflect.Value) {
	for i := range v.NumField() {
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch fv := v.Field(i); {
		case fv.Type() == reflect.TypeFor[time.Time]():
			fv.Set(reflect.ValueOf(time.Unix(1, 0)))
		case fv.Kind() == reflect.Struct:
			setAll(fv)
		case fv.Kind() == reflect.String:
			fv.SetString("x")
		case fv.Kind() == reflect.Int64:
			fv.SetInt(1)
		case fv.Kind() == reflect.Float64:
			fv.SetFloat(1)
		case fv.Kind() == reflect.Bool:
			fv.SetBool(true)
		case fv.Kind() == reflect.Slice:
			fv.Set(reflect.MakeSlice(fv.Type(), 1, 1))
		case fv.Kind() == reflect.Pointer:
			fv.Set(reflect.New(fv.Type().Elem()))
		}
	}
}

// leavesSet appends to out the leaves of v (a struct at off in Event)
// that are set.
func leavesSet(v reflect.Value, off uintptr, out []leaf) []leaf {
	for i := range v.NumField() {
		sf, fv := v.Type().Field(i), v.Field(i)
		at := off + sf.Offset
		kind := leafOther
		switch {
		case fv.IsZero():
			continue
		case sf.Type == reflect.TypeFor[time.Time]():
			kind = leafTime
		case fv.Kind() == reflect.Struct:
			out = leavesSet(fv, at, out)
			continue
		case fv.Kind() == reflect.String:
			kind = leafString
		case fv.Kind() == reflect.Int64, fv.Kind() == reflect.Float64:
			kind = leafWord
		case fv.Kind() == reflect.Bool:
			kind = leafFlag
		}
		out = append(out, leaf{off: uint16(at), kind: kind})
	}
	return out
}

// refillFields are the members whose fields share memory with the
// event's room (the context, the extensions, the flags) or are slices
// made for each event (the lists, the raw objects, the choices): filled
// again for each message taken from a template.
var refillFields = func() (s fieldSet) {
	for _, f := range []field{fAtContext, fExtensions, fRecoverable, fIrreversible, fToolsAvailable,
		fAllowedReplies, fAcceptedResponseKinds, fChoices, fExtraContext, fPackagedContext} {
		s.add(f)
	}
	return s
}()

// scalarFields are the members whose fields hold no string or slice (a
// number, a flag, a time): a patch copies them into the template's event
// (they keep nothing of the message).
var scalarFields = func() (s fieldSet) {
	for f := range nField {
		scalar := true
		for _, l := range leavesOf[f] {
			scalar = scalar && (l.kind == leafWord || l.kind == leafFlag || l.kind == leafTime)
		}
		if scalar {
			s.add(f)
		}
	}
	return s
}()

// holdsNothing reports whether the fields ev holds of member f are no
// string but empty ones and no slice or pointer (a progress object with
// its step alone): a patch copies them into the template's event, as
// scalarFields'. (An empty string there is copied too when it was not
// empty before, its leaf being in t.leaves; a string not empty could be
// a leaf t.leaves lacks, and is the message's.)
func holdsNothing(ev *Event, f field) bool {
	p := unsafe.Pointer(ev)
	for _, l := range leavesOf[f] {
		switch l.kind {
		case leafString:
			if len(*(*string)(unsafe.Add(p, l.off))) != 0 {
				return false
			}
		case leafOther:
			if *(*unsafe.Pointer)(unsafe.Add(p, l.off)) != nil {
				return false
			}
		}
	}
	return true
}

// keepEvent makes ev, just filled from t.b's message b (at its places),
// t's event: its strings cut from b are cut from a frozen copy of b
// instead, and the fresh members' fields are left empty (they are
// filled for each message).
func (t *template) keepEvent(ev *Event, b []byte) {
	t.ev = *ev
	t.ev.Raw = nil
	t.fresh = refillFields
	if l := &ev.Localization; l.AvailableLanguages != nil || l.FallbackChain != nil {
		t.fresh.add(fLocalizationHints)
	}
	frozen := string(b)
	base, n := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))
	p := unsafe.Pointer(&t.ev)
	for _, off := range eventStrings {
		s := (*string)(unsafe.Add(p, off))
		if at := uintptr(unsafe.Pointer(unsafe.StringData(*s))) - base; at < n {
			*s = frozen[at : at+uintptr(len(*s))] // "" too: nothing of b kept
		}
	}
	t.freshen()
}

// copied are the leaves of a template's event that fillFromTemplate
// copies, by kind: the strings not empty (a member not fresh keeps its
// strings), every word, flag and time (a patch changes them: follow).
type copied struct {
	strs, words, flags, times []uint16
}

// freshen finds t's fresh members (fresh, in order) and the leaves of the
// others, clearing the fresh ones' fields in t.ev (they keep nothing).
func (t *template) freshen() {
	c := &t.leaves
	t.freshList, t.spanned = t.freshList[:0], t.spanned[:0]
	c.strs, c.words, c.flags, c.times = c.strs[:0], c.words[:0], c.flags[:0], c.times[:0]
	for k, f := range t.fields {
		for _, l := range leavesOf[f] {
			if l.kind == leafOther && *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(&t.ev), l.off)) != nil {
				// A slice or pointer (refillFields's, or the hints'
				// lists): filled for each message. One not set is
				// the empty event's already.
				t.fresh.add(f)
			}
		}
		if t.fresh.has(f) || readAcross.has(f) {
			t.spanned = append(t.spanned, int32(k))
		}
		if t.fresh.has(f) {
			copyMember(&t.ev, &zeroEvent, f)
			t.freshList = append(t.freshList, f)
			continue
		}
		for _, l := range leavesOf[f] {
			switch l.kind {
			case leafString:
				if *(*string)(unsafe.Add(unsafe.Pointer(&t.ev), l.off)) != "" {
					c.strs = append(c.strs, l.off)
				}
			case leafWord:
				c.words = append(c.words, l.off)
			case leafFlag:
				c.flags = append(c.flags, l.off)
			case leafTime:
				c.times = append(c.times, l.off)
			}
		}
	}
}

// eventStrings are the places in Event of its strings (and of its
// structs' strings; a time.Time holds none).
var eventStrings = func() (out []uintptr) {
	var all Event
	setAll(reflect.ValueOf(&all).Elem())
	for _, l := range leavesSet(reflect.ValueOf(all), 0, nil) {
		if l.kind == leafString {
			out = append(out, uintptr(l.off))
		}
	}
	return out
}()

// fillFromTemplate fills the event of a message taken from x.tpl, empty
// (newBox), from the template's event: see keepEvent. changed are the
// members scanned.
func (x *decodeState) fillFromTemplate(changed []field) {
	t := x.tpl
	p, q := unsafe.Pointer(x.ev), unsafe.Pointer(&t.ev)
	c := &t.leaves
	for _, off := range c.strs {
		*(*string)(unsafe.Add(p, off)) = *(*string)(unsafe.Add(q, off))
	}
	for _, off := range c.words {
		*(*uint64)(unsafe.Add(p, off)) = *(*uint64)(unsafe.Add(q, off))
	}
	for _, off := range c.flags {
		*(*bool)(unsafe.Add(p, off)) = *(*bool)(unsafe.Add(q, off))
	}
	for _, off := range c.times {
		*(*time.Time)(unsafe.Add(p, off)) = *(*time.Time)(unsafe.Add(q, off))
	}
	for i, f := range t.freshList {
		switch {
		case x.scanned.has(f):
		case f == fExtensions:
			x.extensionsFromTpl(x.spans[f])
		default:
			x.populate(t.freshList[i : i+1])
		}
	}
	for _, f := range changed {
		if partialFields.has(f) {
			copyMember(x.ev, &zeroEvent, f)
		}
	}
	x.populate(changed)
}

// readAcross are the members whose spans are read when not scanned, but
// for populate's: the extensions' (extensionsFromTpl) and those validate
// reads across members (a confirmation's default decision).
var readAcross = func() (s fieldSet) {
	for _, f := range []field{fExtensions, fIrreversible, fRiskLevel, fDefaultDecision} {
		s.add(f)
	}
	return s
}()

// partialFields are the members populate may fill only some fields of
// (an object's members absent, a timestamp that is no string): cleared
// before populate fills them over a copy of a template's event.
var partialFields = func() (s fieldSet) {
	for _, f := range []field{fTimestamp, fProducer, fLocalizationHints, fProgress, fChoices} {
		s.add(f)
	}
	return s
}()

// zeroEvent is an Event with no field set, for copyMember to clear one.
var zeroEvent Event

// copyMember sets the fields of dst that populate fills from member f to
// src's.
func copyMember(dst, src *Event, f field) {
	switch f {
	case fAtContext:
		dst.Context = src.Context
	case fAaepVersion:
		dst.AAEPVersion = src.AAEPVersion
	case fType:
		dst.Type = src.Type
	case fEventID:
		dst.EventID = src.EventID
	case fSessionID:
		dst.SessionID = src.SessionID
	case fSequenceNumber:
		dst.HasSeq, dst.Seq = src.HasSeq, src.Seq
	case fTimestamp:
		dst.Timestamp = src.Timestamp
	case fProducer:
		dst.Producer = src.Producer
	case fVerbosity:
		dst.Verbosity = src.Verbosity
	case fUrgency:
		dst.Urgency = src.Urgency
	case fLocalizationHints:
		dst.Localization = src.Localization
	case fCorrelationID:
		dst.CorrelationID = src.CorrelationID
	case fExtensions:
		dst.Extensions = src.Extensions
	case fSummaryTerse:
		dst.SummaryTerse = src.SummaryTerse
	case fSummaryNormal:
		dst.SummaryNormal = src.SummaryNormal
	case fSummaryDetailed:
		dst.SummaryDetailed = src.SummaryDetailed
	case fExpectedDurationMS:
		dst.ExpectedDurationMS = src.ExpectedDurationMS
	case fRequestedBy:
		dst.RequestedBy = src.RequestedBy
	case fRequestText:
		dst.RequestText = src.RequestText
	case fToolsAvailable:
		dst.ToolsAvailable = src.ToolsAvailable
	case fDurationMS:
		dst.DurationMS = src.DurationMS
	case fToolInvocationsCount:
		dst.ToolInvocationsCount = src.ToolInvocationsCount
	case fOutputSummary:
		dst.OutputSummary = src.OutputSummary
	case fResultURI:
		dst.ResultURI = src.ResultURI
	case fErrorCategory:
		dst.ErrorCategory = src.ErrorCategory
	case fErrorCode:
		dst.ErrorCode = src.ErrorCode
	case fErrorURI:
		dst.ErrorURI = src.ErrorURI
	case fRecoverable:
		dst.Recoverable = src.Recoverable
	case fRemediationHint:
		dst.RemediationHint = src.RemediationHint
	case fCancelledBy:
		dst.CancelledBy = src.CancelledBy
	case fCancellationReason:
		dst.CancellationReason = src.CancellationReason
	case fPartialResult:
		dst.PartialResult = src.PartialResult
	case fFromState:
		dst.FromState = src.FromState
	case fToState:
		dst.ToState = src.ToState
	case fProgress:
		dst.Progress = src.Progress
	case fEtaMS:
		dst.EtaMS = src.EtaMS
	case fTool:
		dst.Tool = src.Tool
	case fToolCallID:
		dst.ToolCallID = src.ToolCallID
	case fDescription:
		dst.Description = src.Description
	case fArgsSummary:
		dst.ArgsSummary = src.ArgsSummary
	case fRiskLevel:
		dst.RiskLevel = src.RiskLevel
	case fIrreversible:
		dst.Irreversible = src.Irreversible
	case fStatus:
		dst.Status = src.Status
	case fErrorMessage:
		dst.ErrorMessage = src.ErrorMessage
	case fChunk:
		dst.Chunk = src.Chunk
	case fPosition:
		dst.Position = src.Position
	case fComplete:
		dst.Complete = src.Complete
	case fCoalesceHint:
		dst.CoalesceHint = src.CoalesceHint
	case fOutputID:
		dst.OutputID = src.OutputID
	case fContentType:
		dst.ContentType = src.ContentType
	case fLanguage:
		dst.Language = src.Language
	case fReplyToken:
		dst.ReplyToken = src.ReplyToken
	case fTimeoutSeconds:
		dst.TimeoutSeconds = src.TimeoutSeconds
	case fAction:
		dst.Action = src.Action
	case fConsequence:
		dst.Consequence = src.Consequence
	case fDefaultDecision:
		dst.DefaultDecision = src.DefaultDecision
	case fReversibility:
		dst.Reversibility = src.Reversibility
	case fAllowedReplies:
		dst.AllowedReplies = src.AllowedReplies
	case fExtraContext:
		dst.ExtraContext = src.ExtraContext
	case fQuestion:
		dst.Question = src.Question
	case fAcceptedResponseKinds:
		dst.AcceptedResponseKinds = src.AcceptedResponseKinds
	case fChoices:
		dst.Choices = src.Choices
	case fContext:
		dst.ClarifyContext = src.ClarifyContext
	case fDefaultResponse:
		dst.DefaultResponse, dst.HasDefaultResponse = src.DefaultResponse, src.HasDefaultResponse
	case fReason:
		dst.Reason = src.Reason
	case fTargetKind:
		dst.TargetKind = src.TargetKind
	case fTargetURI:
		dst.TargetURI = src.TargetURI
	case fPackagedContext:
		dst.PackagedContext = src.PackagedContext
	case fUrgencyForHandoff:
		dst.UrgencyForHandoff = src.UrgencyForHandoff
	}
}
