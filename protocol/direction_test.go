package protocol

import "testing"

func TestHasRTL(t *testing.T) {
	for s, want := range map[string]bool{
		"Hello": false, "Ẹ̀ kú àárọ̀": false, "שלום": true, "Sent to مريم": true, "ܫܠܡܐ": true, "": false, "日本語": false,
	} {
		if got := HasRTL(s); got != want {
			t.Errorf("HasRTL(%q) = %v, want %v", s, got, want)
		}
	}
}
