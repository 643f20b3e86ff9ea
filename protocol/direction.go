package protocol

import "unicode"

// HasRTL reports whether s holds a letter of a right-to-left script (Hebrew,
// Arabic, Syriac, Thaana, N'Ko, …), so that outputs can isolate or mark it
// even when the producer declared no direction.
func HasRTL(s string) bool {
	for _, r := range s {
		if r >= 0x0590 && unicode.In(r, rtlScripts...) {
			return true
		}
	}
	return false
}

var rtlScripts = []*unicode.RangeTable{unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko,
	unicode.Samaritan, unicode.Mandaic, unicode.Adlam, unicode.Hanifi_Rohingya, unicode.Yezidi}
