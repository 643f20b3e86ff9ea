package protocol

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every field of an Event that shares memory when the event is copied is
// either copied by Clone or one that shares the bytes the event was
// decoded from, as its strings do. A field added to Event fails here
// until it is put in one of the two lists, and in Clone if it is the
// first: a room's slice kept by mistake would change under a kept event
// once the room is used again (DecodeInto).
func TestCloneCopiesWhatARoomHolds(t *testing.T) {
	cloned := []string{
		"Event.AcceptedResponseKinds",
		"Event.AllowedReplies",
		"Event.Choices",
		"Event.Context",
		"Event.Extensions",
		"Event.Irreversible",
		"Event.Localization.AvailableLanguages",
		"Event.Localization.FallbackChain",
		"Event.Recoverable",
		"Event.ToolsAvailable",
	}
	sharesInput := []string{ // slices of the decoded message
		"Event.Extensions[].Data",
		"Event.ExtraContext",
		"Event.PackagedContext",
		"Event.Raw",
	}
	var e Event
	fill(reflect.ValueOf(&e).Elem())
	orig, copied := map[string]uintptr{}, map[string]uintptr{}
	shared(reflect.ValueOf(e), "Event", orig)
	shared(reflect.ValueOf(*e.Clone()), "Event", copied)

	var paths []string
	for p := range orig {
		if !strings.HasPrefix(p, "Event.Timestamp.") { // time.Location: never changed
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	if want := slices.Sorted(slices.Values(append(slices.Clone(cloned), sharesInput...))); !slices.Equal(paths, want) {
		t.Fatalf("the fields of Event that share memory are\n%q\nwant\n%q\n(a new one: copy it in Clone, or list it as a slice of the input)", paths, want)
	}
	for _, p := range cloned {
		if orig[p] == 0 || orig[p] == copied[p] {
			t.Errorf("%s: the clone shares it (%#x, %#x)", p, orig[p], copied[p])
		}
	}
}

// fill sets every slice in v to one element and every pointer to a new
// value, through structs, so that each has memory of its own.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	}
}

// shared records, by path, where each slice, pointer, map, interface,
// channel and func in v points, through structs and the first element of
// slices and what pointers point to; an empty one is recorded as 0.
func shared(v reflect.Value, path string, out map[string]uintptr) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			shared(v.Field(i), path+"."+v.Type().Field(i).Name, out)
		}
	case reflect.Slice:
		out[path] = 0
		if v.Len() > 0 {
			out[path] = v.Pointer()
			shared(v.Index(0), path+"[]", out)
		}
	case reflect.Pointer:
		out[path] = 0
		if !v.IsNil() {
			out[path] = v.Pointer()
			shared(v.Elem(), path+"[]", out)
		}
	case reflect.Interface:
		out[path] = 0
		if !v.IsNil() {
			out[path] = 1
			shared(v.Elem(), path+"[]", out)
		}
	case reflect.Map, reflect.Chan, reflect.Func:
		out[path] = 0
		if !v.IsNil() {
			out[path] = v.Pointer()
		}
	}
}
