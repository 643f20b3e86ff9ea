package replay

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0:00.0", 1500 * time.Millisecond: "0:01.5", 90 * time.Second: "1:30.0", -2 * time.Second: "-0:02.0", time.Hour: "60:00.0",
	} {
		if got := clock(d); got != want {
			t.Errorf("clock(%v) = %q, want %q", d, got, want)
		}
	}
}
