package harness

import "time"

// parseTimestamp reads an entry's ISO timestamp as Unix milliseconds.
func parseTimestamp(s string) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, err
	}
	return t.UnixMilli(), nil
}
