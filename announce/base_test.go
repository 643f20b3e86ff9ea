package announce

import (
	"reflect"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// base sets every field of the announcement it fills, so that nothing of
// the announcement it filled before is left in it: filled over one
// whose every field is set (each found by reflection, so a field added
// later is held too), it is the announcement filled from nothing, for a
// delivery with an event and one without.
func TestBaseSetsEveryField(t *testing.T) {
	ev := &protocol.Event{
		Type: protocol.TypeProgressUpdated, SessionID: "s1", Urgency: protocol.UrgencyBackground,
		Producer:     protocol.Producer{AgentID: "a1", AgentName: "Agent"},
		Localization: protocol.LocalizationHints{PrimaryLanguage: "en", TextDirection: "ltr"},
	}
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for _, d := range []session.Delivery{
		{At: at, Kind: session.KindEvent, Event: ev},
		{At: at, Kind: session.KindPromptExpired, Rule: "r"},
	} {
		a := New(Config{})
		var fresh Announcement
		a.base(&fresh, &d, "progress", "words")

		var used Announcement
		v := reflect.ValueOf(&used).Elem()
		for i := range v.NumField() {
			f := v.Field(i)
			switch f.Kind() {
			case reflect.String:
				f.SetString("left over")
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Int:
				f.SetInt(7)
			case reflect.Slice:
				f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			case reflect.Pointer:
				f.Set(reflect.New(f.Type().Elem()))
			case reflect.Struct:
				if f.Type() != reflect.TypeOf(time.Time{}) {
					t.Fatalf("field %s: a struct this test does not fill", v.Type().Field(i).Name)
				}
				f.Set(reflect.ValueOf(at.Add(time.Hour)))
			default:
				t.Fatalf("field %s: a kind this test does not fill (%v)", v.Type().Field(i).Name, f.Kind())
			}
			if f.IsZero() {
				t.Fatalf("field %s still zero", v.Type().Field(i).Name)
			}
		}
		a.base(&used, &d, "progress", "words")
		if !reflect.DeepEqual(used, fresh) {
			t.Errorf("filled over a used announcement:\n%+v\nfrom nothing:\n%+v", used, fresh)
		}
	}
}
