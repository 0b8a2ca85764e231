package aar

import (
	"reflect"
	"testing"
)

// Delegation links with the aar-decide/1.4.0 scope members (issue 29): read like core's read-wire-scope.ts and
// judged like core's find-attenuation-violations.ts (the same paths).
func TestReadWireScopeBudgetAndMerchants(t *testing.T) {
	scope, bad := readWireScope(map[string]any{
		"budget":            map[string]any{"amount": 12.345, "currency": "BHD", "period": "week"},
		"allowed_merchants": []any{"a"},
	})
	want := map[string]any{
		"budget":            map[string]any{"minor": 12345.0, "currency": "BHD", "period": "week"},
		"allowed_merchants": []any{"a"},
	}
	if len(bad) != 0 || !reflect.DeepEqual(scope, want) {
		t.Fatalf("got %v %v", scope, bad)
	}
	for _, b := range []any{
		map[string]any{"amount": 10.0, "currency": "EUR"},
		map[string]any{"amount": 10.0, "currency": "EUR", "period": "fortnight"},
		map[string]any{"amount": 10.001, "currency": "EUR", "period": "day"},
		map[string]any{"minor": 1000.0, "currency": "EUR", "period": "day"},
	} {
		if _, bad := readWireScope(map[string]any{"budget": b}); !reflect.DeepEqual(bad, []string{"budget"}) {
			t.Errorf("%v: %v", b, bad)
		}
	}
	if _, bad := readWireScope(map[string]any{"allowed_merchants": "x"}); !reflect.DeepEqual(bad, []string{"allowed_merchants"}) {
		t.Errorf("allowed_merchants: %v", bad)
	}
}

func TestScopeViolationsBudgetAndMerchants(t *testing.T) {
	read := func(wire map[string]any) map[string]any {
		s, bad := readWireScope(wire)
		if len(bad) != 0 {
			t.Fatalf("%v", bad)
		}
		return s
	}
	parent := read(map[string]any{
		"max_daily_amount":  map[string]any{"amount": 300.0, "currency": "EUR"},
		"budget":            map[string]any{"amount": 1000.0, "currency": "EUR", "period": "month"},
		"allowed_merchants": []any{"grocer-berlin", "bakery-paris"},
	})
	cases := []struct {
		child map[string]any
		want  []string
	}{
		{map[string]any{"budget": map[string]any{"amount": 5.0, "currency": "EUR", "period": "day"}, "allowed_merchants": []any{"bakery-paris"}}, nil},
		{map[string]any{"budget": map[string]any{"amount": 2000.0, "currency": "EUR", "period": "year"}, "allowed_merchants": []any{"casino-online"}}, []string{"/scope/budget", "/scope/allowed_merchants"}},
		{map[string]any{"budget": map[string]any{"amount": 5.0, "currency": "USD", "period": "day"}}, []string{"/scope/budget/currency"}},
	}
	for _, c := range cases {
		got := findScopeViolations(read(c.child), parent, computeEffectiveScope([]map[string]any{parent}))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %v, want %v", c.child, got, c.want)
		}
	}
}
