package aar

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Budget periods at their edges (aar-decide/1.4.0), the same cases as core's budget-period.test.ts.
func TestBudgetPeriodStartAtEdges(t *testing.T) {
	cases := []struct{ period, now, want string }{
		{"day", "2026-04-16T01:30:00+02:00", "2026-04-15"},
		{"day", "2026-04-15T22:30:00-02:00", "2026-04-16"},
		{"week", "2026-04-15T10:00:00Z", "2026-04-13"},
		{"week", "2026-01-01T12:00:00Z", "2025-12-29"},
		{"week", "2026-01-05T00:00:00Z", "2026-01-05"},
		{"week", "2026-03-01T08:00:00Z", "2026-02-23"},
		{"week", "2032-02-29T12:00:00Z", "2032-02-23"},
		{"week", "1970-01-01T00:00:00Z", "1969-12-29"},
		{"month", "2028-02-29T23:59:59Z", "2028-02-01"},
		{"month", "2026-05-01T00:30:00+01:00", "2026-04-01"},
		{"year", "2026-12-31T23:59:59.999Z", "2026-01-01"},
		{"year", "2027-01-01T00:30:00+01:00", "2026-01-01"},
	}
	for _, c := range cases {
		got, ok, err := BudgetPeriodStart(c.period, c.now)
		if err != nil || !ok || got != c.want {
			t.Errorf("%s %s: got %q %v %v, want %q", c.period, c.now, got, ok, err, c.want)
		}
	}
	if _, ok, err := BudgetPeriodStart("total", "2026-04-15T10:00:00Z"); ok || err != nil {
		t.Errorf("total has no start: %v %v", ok, err)
	}
	for _, bad := range [][2]string{{"fortnight", "2026-04-15T10:00:00Z"}, {"day", "2026-04-15"}, {"total", "later"}} {
		if _, _, err := BudgetPeriodStart(bad[0], bad[1]); err == nil {
			t.Errorf("%v: want an error", bad)
		}
	}
}

func TestBudgetPeriodStartAgreesWithTimeOverFourYears(t *testing.T) {
	start := time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC)
	for d := 0; d < 4*366; d++ {
		at := start.AddDate(0, 0, d)
		iso := at.Format("2006-01-02T15:04:05Z")
		sinceMonday := (int(at.Weekday()) + 6) % 7
		want := map[string]string{
			"day":   at.Format("2006-01-02"),
			"month": at.Format("2006-01") + "-01",
			"year":  at.Format("2006") + "-01-01",
			"week":  at.AddDate(0, 0, -sinceMonday).Format("2006-01-02"),
		}
		for period, w := range want {
			if got, _, _ := BudgetPeriodStart(period, iso); got != w {
				t.Fatalf("%s %s: got %s, want %s", period, iso, got, w)
			}
		}
	}
}

// Facts the decision vectors cannot hold: a missing or malformed budget_spent fails closed, a malformed mandate
// binding is delegation_invalid.
func TestDecideBudgetAndMandateFailClosed(t *testing.T) {
	load := func(name string) (any, map[string]any, string) {
		in := obj(obj(readJSONFile(t, filepath.Join(vectorPath(t, "decisions"), name)))["input"])
		return in["request"], obj(in["snapshot"]), in["now"].(string)
	}
	failedDetail := func(r DecisionResult) string {
		for _, c := range r.Diagnostics.Checks {
			if c.Outcome == "fail" {
				return c.Detail
			}
		}
		return ""
	}
	for _, spent := range []any{"missing", nil, "lots", map[string]any{"minor": -1.0, "currency": "EUR"}, map[string]any{"minor": 10.0, "currency": "USD"}} {
		req, snap, now := load("allow-budget-reached-exactly.json")
		grant := obj(snap["grants"].([]any)[0])
		if spent == "missing" {
			delete(grant, "budget_spent")
		} else {
			grant["budget_spent"] = spent
		}
		r := DecideJSON(req, snap, now)
		if r.Reason != "budget_exceeded" || !strings.Contains(failedDetail(r), "budget_spent is missing or malformed") {
			t.Errorf("budget_spent %v: %s %s", spent, r.Reason, failedDetail(r))
		}
	}
	for _, m := range []any{nil, "ns:mandate:x", map[string]any{"mandate_id": "ns:mandate:x", "format": "vi", "digest": "d", "single_use": false, "used": false}} {
		req, snap, now := load("allow-mandate-grant-within-budget.json")
		obj(snap["grants"].([]any)[1])["mandate"] = m
		r := DecideJSON(req, snap, now)
		if r.Reason != "delegation_invalid" || !strings.HasSuffix(failedDetail(r), "has malformed mandate") {
			t.Errorf("mandate %v: %s %s", m, r.Reason, failedDetail(r))
		}
	}
}
