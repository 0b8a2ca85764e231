// The first UTC day of a budget's current period (aar-decide/1.4.0), as core's decide/budget-period.ts: "day" the
// UTC day, "week" the ISO week (Monday 00:00 UTC), "month", "year"; "total" has none. Integer arithmetic on the
// parsed instant, so offsets and leap days are exact; a bad period or timestamp is an error rather than a guess.

package aar

import (
	"errors"
	"fmt"
	"strings"
)

// BudgetPeriodStart gives `YYYY-MM-DD`, the first UTC day of the period of `period` that holds `nowISO`; ok is false
// for "total" (every day since the grant).
func BudgetPeriodStart(period, nowISO string) (start string, ok bool, err error) {
	if !includesString(BudgetPeriods, period) {
		return "", false, errors.New("budget period must be one of " + strings.Join(BudgetPeriods, ", "))
	}
	now, parsed := parseInstant(nowISO)
	if !parsed {
		return "", false, errors.New("now must be an ISO 8601 timestamp with an offset")
	}
	if period == "total" {
		return "", false, nil
	}
	days := floorDiv(now.seconds, 86400)
	if period == "week" {
		// 1970-01-01 was a Thursday: (days + 3) mod 7 counts days since Monday
		sinceMonday := ((days+3)%7 + 7) % 7
		y, m, d := civilFromDays(days - sinceMonday)
		return dayText(y, m, d), true, nil
	}
	y, m, d := civilFromDays(days)
	switch period {
	case "day":
		return dayText(y, m, d), true, nil
	case "month":
		return dayText(y, m, 1), true, nil
	}
	return dayText(y, 1, 1), true, nil
}

// civilFromDays is H. Hinnant's civil_from_days, with floor division as core's.
func civilFromDays(days int64) (int64, int64, int64) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	if mp >= 10 {
		month = mp - 9
	}
	year := yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

func dayText(y, m, d int64) string { return fmt.Sprintf("%04d-%02d-%02d", y, m, d) }
