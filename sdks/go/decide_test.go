package aar

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
)

// asJSON normalises a typed value to its generic JSON form for comparison with a vector.
func asJSON(t testing.TB, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ParseJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDecideAgreesWithEveryDecisionVector(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(vectorPath(t, "decisions"), "*.json"))
	if len(files) < 50 {
		t.Fatalf("only %d decision vectors", len(files))
	}
	reasons := map[string]bool{}
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := obj(readJSONFile(t, f))
			in, want := obj(c["input"]), obj(c["want"])
			got := DecideJSON(in["request"], in["snapshot"], in["now"].(string))
			reasons[got.Reason] = true
			if got.Decision != want["decision"] || got.Reason != want["reason"] {
				t.Fatalf("got %s/%s, want %v/%v\n%+v", got.Decision, got.Reason, want["decision"], want["reason"], got.Diagnostics.Checks)
			}
			gotJSON := obj(asJSON(t, got))
			for _, key := range []string{"obligations", "stop_conditions"} {
				if w, ok := want[key]; ok && !reflect.DeepEqual(gotJSON[key], w) {
					t.Errorf("%s: got %v, want %v", key, gotJSON[key], w)
				}
			}
			if w, ok := want["reservation"]; ok {
				g, present := gotJSON["reservation"]
				if w == nil && present {
					t.Errorf("reservation: got %v, want none", g)
				} else if w != nil && !reflect.DeepEqual(g, w) {
					t.Errorf("reservation: got %v, want %v", g, w)
				}
			}
			// The checks are reported in order; the deciding one names the reason; all after it are skipped.
			checks := got.Diagnostics.Checks
			if len(checks) != len(CheckOrder) {
				t.Fatalf("%d checks", len(checks))
			}
			decided := false
			for i, ch := range checks {
				if ch.Check != CheckOrder[i] {
					t.Fatalf("check %d is %s", i, ch.Check)
				}
				if decided && ch.Outcome != "skip" {
					t.Fatalf("check %s ran after the deciding one", ch.Check)
				}
				if ch.Outcome == "fail" {
					decided = true
					if ch.Reason != got.Reason {
						t.Fatalf("failing check names %s, result %s", ch.Reason, got.Reason)
					}
				}
			}
		})
	}
	for code := range ReasonCodes {
		if !reasons[code] {
			t.Errorf("no vector reaches %s", code)
		}
	}
}

func TestDecideNeverPanicsOnHostileShapes(t *testing.T) {
	for _, snap := range []any{
		nil, "x", []any{}, map[string]any{"grants": "x"}, map[string]any{"grants": []any{1.0}},
		map[string]any{"grant_lookup": "found", "grants": []any{map[string]any{"scope": []any{}}}},
		map[string]any{"alternatives": []any{"x", []any{nil}}},
	} {
		r := DecideJSON(map[string]any{"action": 5.0, "amount": "1"}, snap, "not a time")
		if r.Decision != DecisionDeny {
			t.Fatalf("%v: %s", snap, r.Decision)
		}
	}
}
