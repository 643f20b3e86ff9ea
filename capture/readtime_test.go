package capture

import "strconv"

// The readers of a record's time as the fuzz targets hold readTime to:
// strconv.ParseFloat's reading, before jsonTimeAt's question of JSON.

// timeAt reads the time that begins t[i:], the bytes of a number there
// (digits, '.', 'e', 'E', '+', '-'), as strconv.ParseFloat reads them, and
// returns where they end.
func timeAt(t []byte, i int) (sec float64, end int, err error) {
	sec, end, _, err = readTime(t, i)
	return sec, end, err
}

// recordTime reads b, a record's time, as strconv.ParseFloat does
// (timeAt).
func recordTime(b []byte) (float64, error) {
	sec, j, err := timeAt(b, 0)
	if j != len(b) {
		return strconv.ParseFloat(string(b), 64)
	}
	return sec, err
}
