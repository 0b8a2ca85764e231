package aar

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// clockNowISO is the system clock as core's `new Date().toISOString()` writes it (UTC, milliseconds, `Z`): the
// default `now` of the verifiers that judge time.
func clockNowISO() string {
	return time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
}

// instant is an exact point in time: ISO 8601 timestamps compare by seconds then nanoseconds, never through a
// float, so `valid_until` 10:00:00.0005 stays later than `now` 10:00:00.000 (core's instant.ts).
type instant struct {
	seconds int64
	nanos   int64
}

var isoPattern = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$`)

// parseInstant accepts `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` and nothing else.
func parseInstant(v any) (instant, bool) {
	s, ok := v.(string)
	if !ok {
		return instant{}, false
	}
	m := isoPattern.FindStringSubmatch(s)
	if m == nil {
		return instant{}, false
	}
	n := func(i int) int64 { x, _ := strconv.ParseInt(m[i], 10, 64); return x }
	year, month, day, hour, minute, second := n(1), n(2), n(3), n(4), n(5), n(6)
	if month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) {
		return instant{}, false
	}
	if hour > 23 || minute > 59 || second > 59 {
		return instant{}, false
	}
	var offset int64
	if m[8] != "Z" {
		oh, om := n(10), n(11)
		if oh > 23 || om > 59 {
			return instant{}, false
		}
		offset = oh*3600 + om*60
		if m[9] == "-" {
			offset = -offset
		}
	}
	secs := daysFromCivil(year, month, day)*86400 + hour*3600 + minute*60 + second - offset
	frac := m[7] + strings.Repeat("0", 9-len(m[7]))
	nanos, _ := strconv.ParseInt(frac, 10, 64)
	return instant{seconds: secs, nanos: nanos}, true
}

func compareInstants(a, b instant) int {
	if a.seconds != b.seconds {
		if a.seconds < b.seconds {
			return -1
		}
		return 1
	}
	if a.nanos != b.nanos {
		if a.nanos < b.nanos {
			return -1
		}
		return 1
	}
	return 0
}

func daysInMonth(year, month int64) int64 {
	switch month {
	case 2:
		if (year%4 == 0 && year%100 != 0) || year%400 == 0 {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// daysFromCivil is H. Hinnant's days_from_civil: days since 1970-01-01 of a proleptic Gregorian date.
func daysFromCivil(year, month, day int64) int64 {
	y := year
	if month <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := month + 9
	if month > 2 {
		mp = month - 3
	}
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
