package record

import "testing"

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"500", 500}, {"2K", 2048}, {"2k", 2048}, {"10M", 10 << 20}, {"1G", 1 << 30},
		{"3KB", 3072}, {"3KiB", 3072}, {" 7M ", 7 << 20},
		{"", 0}, {"0", 0}, {"-1K", 0}, {"K", 0}, {"1T", 0}, {"1.5M", 0}, {"99999999999G", 0},
	} {
		got, err := ParseSize(tt.in)
		if (err != nil) != (tt.want == 0) || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"10M", "1", "3KiB", "-1", "9223372036854775807", "99999999999G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && n <= 0 {
			t.Errorf("ParseSize(%q) = %d without an error", s, n)
		}
	})
}
