package session

import (
	"strconv"
	"time"
)

// activityTime is pi 0.73.1's "last activity" of one entry line: for a
// message entry of role user or assistant that has content, the message's
// own timestamp (milliseconds since the epoch) when it has one, else the
// entry's timestamp. ok is false for every other line. The line is walked,
// not decoded: listing a large session must not decode its messages.
func activityTime(line []byte) (t time.Time, ok bool) {
	it, err := newObjIter(line, 0)
	if err != nil {
		return t, false
	}
	var (
		isMessage, userOrAssistant, hasContent bool
		msgMillis                              float64
		hasMsgTime                             bool
		entryTime                              string
	)
	m, more, err := it.next()
	for more && err == nil {
		switch {
		case m.keyIs("message") && m.start < len(line) && line[m.start] == '{':
			m.end, err = walkObject(line, m.start, func(mm member) {
				v := line[mm.start:mm.end]
				switch {
				case mm.keyIs("role"):
					r, _ := stringValue(v)
					userOrAssistant = r == "user" || r == "assistant"
				case mm.keyIs("content"):
					hasContent = true
				case mm.keyIs("timestamp"):
					if f, err := strconv.ParseFloat(string(v), 64); err == nil {
						msgMillis, hasMsgTime = f, true
					}
				}
			})
		default:
			m.end, err = skipValue(line, m.start)
		}
		if err != nil {
			return t, false
		}
		v := line[m.start:m.end]
		switch {
		case m.keyIs("type"):
			s, _ := stringValue(v)
			isMessage = s == TypeMessage
		case m.keyIs("timestamp"):
			entryTime, _ = stringValue(v)
		}
		if more, err = it.after(m.end); err != nil || !more {
			break
		}
		m, more, err = it.key(it.i)
	}
	if err != nil || !isMessage || !userOrAssistant || !hasContent {
		return t, false
	}
	if hasMsgTime {
		return time.UnixMilli(int64(msgMillis)), true
	}
	et, perr := time.Parse(time.RFC3339Nano, entryTime)
	if perr != nil {
		return t, false
	}
	return et, true
}

// activityMillis is activityTime's time from the raw values the scanner
// found (scanLine): the message's timestamp when it is a number, else the
// entry's timestamp string. It must agree with activityTime, which
// FuzzActivityMatchesScan checks.
func activityMillis(msgTS, entryTS []byte) (int64, bool) {
	if len(msgTS) > 0 {
		if f, err := strconv.ParseFloat(string(msgTS), 64); err == nil {
			return int64(f), true
		}
	}
	s, ok := stringValue(entryTS)
	if !ok {
		return 0, false
	}
	et, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return et.UnixMilli(), true
}
