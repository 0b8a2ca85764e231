package aar

import (
	"reflect"
	"strings"
	"testing"
)

func mustParse(t testing.TB, text string) any {
	t.Helper()
	v, err := ParseJSON([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

// Each refusal names the offending value by its pointer under the rule's own pointer, with core's message.
func TestRuleProfileRefusals(t *testing.T) {
	deep := strings.Repeat(`{"!":`, 32) + "true" + strings.Repeat("}", 32)
	wide := `{"merge":[` + strings.Repeat("1,", 2000) + `1]}`
	cases := []struct {
		rule string
		want []RuleProblem
	}{
		{`{"==":[1,1]}`, []RuleProblem{{"/rules/0/when/==", `operator "==" is not in the profile`}}},
		{`{"and":[{"/":[1,2]},{"log":1}]}`, []RuleProblem{
			{"/rules/0/when/and/0/~1", `operator "/" is not in the profile`},
			{"/rules/0/when/and/1/log", `operator "log" is not in the profile`}}},
		{`{"<":[1.5,2]}`, []RuleProblem{{"/rules/0/when/</0", "number 1.5 is not a safe integer (integers only)"}}},
		{`{"+":[9007199254740992]}`, []RuleProblem{{"/rules/0/when/+/0", "number 9007199254740992 is not a safe integer (integers only)"}}},
		{`{"var":"request.length"}`, []RuleProblem{{"/rules/0/when/var", `path "request.length": segment "length" is an inherited property name`}}},
		{`{"var":["a.b-c", 1]}`, []RuleProblem{{"/rules/0/when/var/0", `path "a.b-c": segment "b-c" must match ^[A-Za-z0-9_]+$`}}},
		{`{"var":[{"cat":["a"]}]}`, []RuleProblem{{"/rules/0/when/var/0", "a path must be a literal string or integer (computed paths are refused)"}}},
		{`{"var":[]}`, []RuleProblem{{"/rules/0/when/var", "var takes [path] or [path, default]"}}},
		{`{"missing":[["__proto__"]]}`, []RuleProblem{{"/rules/0/when/missing/0/0", `path "__proto__": segment "__proto__" is an inherited property name`}}},
		{`{"missing_some":[1,"a"]}`, []RuleProblem{{"/rules/0/when/missing_some/1", "expected a literal array of paths"}}},
		{`{"some":[[1]]}`, []RuleProblem{{"/rules/0/when/some", "some takes exactly two arguments: [array, rule]"}}},
		{`{"if":[{"a":1,"b":2}]}`, []RuleProblem{{"/rules/0/when/if/0", "an object in a rule must be an operation with exactly one operator (found 2 members)"}}},
		{`{"in":["a~b/c",{}]}`, []RuleProblem{{"/rules/0/when/in/1", "an object in a rule must be an operation with exactly one operator (found 0 members)"}}},
		{`{"a/b~":1}`, []RuleProblem{{"/rules/0/when/a~1b~0", `operator "a/b~" is not in the profile`}}},
		{deep, []RuleProblem{{"/rules/0/when" + strings.Repeat("/!", 31) + "/!", "rule nests deeper than 32 levels"}}},
		{wide, []RuleProblem{{"/rules/0/when", "rule has 2003 nodes, at most 2000 allowed"}}},
	}
	for _, c := range cases {
		got := CheckRuleProfile(mustParse(t, c.rule), "/rules/0/when")
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%.60s:\n got  %v\n want %v", c.rule, got, c.want)
		}
	}
	for _, ok := range []string{`{"var":""}`, `{"var":0}`, `{"var":["facts.counters.purchases_1h", 0]}`,
		`{"missing_some":[1,["a","b"]]}`, `{"some":[{"var":"request.basket.items"},{"===":[{"var":"category"},"alcohol"]}]}`,
		strings.Repeat(`{"!":`, 31) + "true" + strings.Repeat("}", 31)} {
		if p := CheckRuleProfile(mustParse(t, ok), ""); len(p) != 0 {
			t.Errorf("%.60s refused: %v", ok, p)
		}
	}
}

func TestRulePathsListTopScopePaths(t *testing.T) {
	rule := mustParse(t, `{"and":[{"var":["facts.counters.purchases_1h",{"var":"request.amount.minor"}]},
		{"missing":[["a","b"]]},{"missing_some":[{"var":"n"},["c"]]},{"some":[{"var":"items"},{"var":"inner"}]},{"var":7}]}`)
	want := []string{"facts.counters.purchases_1h", "request.amount.minor", "a", "b", "n", "c", "items", "7"}
	if got := RulePaths(rule); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// JavaScript corners the vectors may not reach: UTF-16 indices, own toString/indexOf members of hostile data,
// `*` of nothing, and unknown operators all behave as json-logic-js does.
func TestJsonLogicJavaScriptCorners(t *testing.T) {
	data := mustParse(t, `{"emoji":"😀x","hostile":{"toString":1},"finder":{"indexOf":2},"list":[1,2]}`)
	cases := []struct{ rule, want string }{
		{`{"substr":[{"var":"emoji"},2]}`, `"x"`},
		{`{"substr":[{"var":"emoji"},0,-1]}`, `"😀"`},
		{`{"substr":["abcdef",1,"-2"]}`, `""`},
		{`{"var":"emoji.2"}`, `"x"`},
		{`{"in":["😀",{"var":"emoji"}]}`, `true`},
		{`{"<":["😀","\uffff"]}`, `true`},
		{`{"===":[{"var":"list"},{"var":"list"}]}`, `true`},
		{`{"===":[[1],[1]]}`, `false`},
		{`{"+":[" 12px","0x10","1e2"]}`, `112`},
		{`{"*":["5"]}`, `"5"`},
		{`{"-":["0x10"]}`, `-16`},
		{`{"cat":[1e21,0.000001,1e-7,null,[1,[2,null]]]}`, `"1e+210.0000011e-71,2,"`},
		{`{"max":[]}`, `{"$number":"-Infinity"}`},
		{`{"%":[1,0]}`, `{"$number":"NaN"}`},
		{`{"and":[]}`, `{"$undefined":true}`},
		{`{"all":[[],true]}`, `false`},
		{`{"missing_some":[1,["a","list"]]}`, `[]`},
		{`{"<":[1,2,{"and":[]}]}`, `true`},
	}
	for _, c := range cases {
		got, err := ApplyJsonLogic(mustParse(t, c.rule), data)
		if err != nil {
			t.Errorf("%s: %v", c.rule, err)
			continue
		}
		if g := canonicalText(t, encodeRuleResult(got)); g != c.want {
			t.Errorf("%s: got %s, want %s", c.rule, g, c.want)
		}
	}
	// A lone surrogate cut out of a pair stays one UTF-16 unit, as in JavaScript.
	got, _ := ApplyJsonLogic(mustParse(t, `{"substr":[{"var":"emoji"},1]}`), data)
	if units := utf16Units(got.(string)); len(units) != 2 || units[0] != 0xDE00 || units[1] != 'x' {
		t.Errorf("substr splitting a pair: %x", units)
	}
	for _, rule := range []string{`{"cat":[{"var":"hostile"}]}`, `{"in":[1,{"var":"finder"}]}`, `{"*":[]}`,
		`{"nope":[1]}`, `{"var.length":["a"]}`, `{"missing_some":[1,{"var":"absent"}]}`} {
		if _, err := ApplyJsonLogic(mustParse(t, rule), data); err == nil {
			t.Errorf("%s: no error, json-logic-js throws", rule)
		}
	}
}
