package aar

import (
	"math"
	"strings"
	"testing"
)

// encodeRuleResult is a result as the vectors write it (DESIGN-27 section 2): NaN and ±Infinity as
// {"$number": "NaN" | "Infinity" | "-Infinity"}, undefined as {"$undefined": true}, -0 as 0.
func encodeRuleResult(v any) any {
	switch x := v.(type) {
	case jsUndefined:
		return map[string]any{"$undefined": true}
	case float64:
		switch {
		case math.IsNaN(x), math.IsInf(x, 0):
			return map[string]any{"$number": jsNumberToString(x)}
		case x == 0:
			return 0.0
		}
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = encodeRuleResult(item)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = encodeRuleResult(item)
		}
		return out
	}
	return v
}

func canonicalText(t testing.TB, v any) string {
	t.Helper()
	b, err := Canonicalize(v)
	if err != nil {
		t.Fatalf("canonicalize %#v: %v", v, err)
	}
	return string(b)
}

// TestJsonLogicSharedSuiteOutsideProfile: the evaluator implements all of json-logic-js 2.0.5 (data may be re-read
// as logic), so the shared suite's 50 cases outside the profile agree too, except the 15 that use operator aliases
// json-logic-js 2.0.5 does not know (`equal`, `add`...): it throws on them, and so does Go.
func TestJsonLogicSharedSuiteOutsideProfile(t *testing.T) {
	suite, _ := readJSONFile(t, sharedVectorPath(t, "jsonlogic", "tests.json")).([]any)
	outside, agree, unknownOperator := 0, 0, 0
	for i, entry := range suite {
		c, ok := entry.([]any)
		if !ok || len(CheckRuleProfile(c[0], "")) == 0 {
			continue
		}
		outside++
		got, err := ApplyJsonLogic(c[0], c[1])
		if err != nil && strings.HasPrefix(err.Error(), "Unrecognized operation ") {
			unknownOperator++
			continue
		}
		if err != nil || canonicalText(t, encodeRuleResult(got)) != canonicalText(t, c[2]) {
			t.Errorf("case %d %s: got %v (%v), want %s", i, canonicalText(t, c[0]), got, err, canonicalText(t, c[2]))
			continue
		}
		agree++
	}
	if outside != 50 || agree != 35 || unknownOperator != 15 {
		t.Fatalf("outside %d, agree %d, unknown operator %d; expected 50, 35, 15", outside, agree, unknownOperator)
	}
}

// TestJsonLogicProfileCasesAgreeWithCore: the shared suite's cases inside the profile are exactly the indexes core
// lists (vectors/jsonlogic-profile-cases.json), 240 of them, and every one evaluates to the suite's answer.
func TestJsonLogicProfileCasesAgreeWithCore(t *testing.T) {
	listed := obj(readJSONFile(t, vectorPath(t, "jsonlogic-profile-cases.json")))
	suite, _ := readJSONFile(t, sharedVectorPath(t, "jsonlogic", "tests.json")).([]any)
	indexes, _ := listed["indexes"].([]any)
	if listed["count"] != 240.0 || len(indexes) != 240 {
		t.Fatalf("core lists %v cases (%d indexes), expected 240", listed["count"], len(indexes))
	}
	want := map[int]bool{}
	for _, i := range indexes {
		want[int(i.(float64))] = true
	}
	evaluated := 0
	for i, entry := range suite {
		c, ok := entry.([]any)
		inside := ok && len(CheckRuleProfile(c[0], "")) == 0
		if inside != want[i] {
			t.Errorf("shared case %d: Go says inside=%v, core %v", i, inside, want[i])
			continue
		}
		if !inside {
			continue
		}
		got, err := ApplyJsonLogic(c[0], c[1])
		if err != nil || canonicalText(t, encodeRuleResult(got)) != canonicalText(t, c[2]) {
			t.Errorf("shared case %d: got %v (%v), want %s", i, got, err, canonicalText(t, c[2]))
			continue
		}
		evaluated++
	}
	if evaluated != 240 {
		t.Fatalf("%d of 240 profile cases agree", evaluated)
	}
}

// TestJsonLogicDifferentialAgreesWithJsonLogicJS evaluates the 5,000 seeded cases core generated with json-logic-js
// 2.0.5 (vectors/jsonlogic-differential.json): every answer, throws ({"$error": true}) included, must be identical.
func TestJsonLogicDifferentialAgreesWithJsonLogicJS(t *testing.T) {
	file := obj(readJSONFile(t, vectorPath(t, "jsonlogic-differential.json")))
	cases, _ := file["cases"].([]any)
	if file["count"] != 5000.0 || len(cases) != 5000 {
		t.Fatalf("differential file holds %d cases (count %v), expected 5000", len(cases), file["count"])
	}
	agree, errors := 0, 0
	for i, raw := range cases {
		c := obj(raw)
		if problems := CheckRuleProfile(c["rule"], ""); len(problems) > 0 {
			t.Errorf("case %d: rule outside the profile: %v", i, problems)
			continue
		}
		got, err := ApplyJsonLogic(c["rule"], c["data"])
		var encoded any = map[string]any{"$error": true}
		if err == nil {
			encoded = encodeRuleResult(got)
		} else {
			errors++
		}
		if g, w := canonicalText(t, encoded), canonicalText(t, c["result"]); g != w {
			t.Errorf("case %d %s on %s: got %s, want %s", i, canonicalText(t, c["rule"]), canonicalText(t, c["data"]), g, w)
			continue
		}
		agree++
	}
	if agree != 5000 {
		t.Fatalf("%d of 5000 differential cases agree", agree)
	}
	t.Logf("5000 differential cases agree (%d of them throw)", errors)
}
