package protocol

// Undo says whether the action of an event can be undone. It is read from
// the event's irreversible flag and its reversibility together, by Event.Undo
// alone: the policy, the announcements, the safety warnings and the audit
// log all ask it, so none can call an action reversible that another calls
// one that cannot be undone.
type Undo uint8

// Undo values, from the safest to the worst.
const (
	UndoUnsaid     Undo = iota // neither field is given
	UndoReversible             // it can be undone
	UndoWithEffort             // undoing it takes effort
	UndoCannot                 // it cannot be undone, or the event contradicts itself
)

// Undo reads whether ev's action can be undone. A flag saying irreversible,
// a reversibility of "irreversible", a reversibility that is none of the
// values the spec defines, or a flag and a reversibility that disagree
// (irreversible:false with reversibility "irreversible", irreversible:true
// with "reversible"), or either field given twice in the JSON object, all
// mean it cannot be undone: a producer that is unsure
// or contradicts itself gets the reading that keeps the user safest.
func (ev *Event) Undo() Undo {
	if ev.undoTwice {
		return UndoCannot // the field came twice: the event contradicts itself
	}
	flag := UndoUnsaid
	if ev.Irreversible != nil {
		flag = UndoReversible
		if *ev.Irreversible {
			flag = UndoCannot
		}
	}
	var said Undo
	switch ev.Reversibility {
	case "":
		return flag
	case "reversible":
		said = UndoReversible
	case "reversible_with_effort":
		said = UndoWithEffort
	default: // "irreversible", or a value the spec does not define
		return UndoCannot
	}
	if flag == UndoCannot {
		return UndoCannot
	}
	return said
}

// CannotBeUndone reports whether u is UndoCannot.
func (u Undo) CannotBeUndone() bool { return u == UndoCannot }

// Said returns whether the event said if its action can be undone and, when
// it did, whether it cannot be: the audit log's irreversible field.
func (u Undo) Said() (irreversible, said bool) { return u == UndoCannot, u != UndoUnsaid }

// Words says u as the answer to "can it be undone?" in a details list:
// "no", "with effort", "yes", or "" when the event did not say.
func (u Undo) Words() string {
	return [...]string{UndoUnsaid: "", UndoReversible: "yes", UndoWithEffort: "with effort", UndoCannot: "no"}[u]
}
