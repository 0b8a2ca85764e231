package aar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shippedDictionaries reads packages/server/policy/dictionaries/*.json as snapshots by name.
func shippedDictionaries(t *testing.T) map[string]any {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(repoRoot(t), "packages", "server", "policy", "dictionaries", "*.json"))
	out := map[string]any{}
	for _, f := range files {
		snap, err := DictionarySnapshotOf(readJSONFile(t, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimPrefix(snap["dictionary_id"].(string), "ns:dictionary:")] = snap
	}
	return out
}

// TestShippedRulePacksPassTheirTests: every pack in packages/server/policy/rule-packs is inside the profile, and its
// own tests pass in Go exactly as core's runPackTests runs them.
func TestShippedRulePacksPassTheirTests(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "packages", "server", "policy", "rule-packs")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no shipped rule pack in %s", dir)
	}
	dictionaries := shippedDictionaries(t)
	total := 0
	for _, f := range files {
		doc := readJSONFile(t, f)
		name := filepath.Base(f)
		raw, _ := os.ReadFile(f)
		if len(raw) > MaxPackBytes {
			t.Errorf("%s: %d bytes, over %d", name, len(raw), MaxPackBytes)
		}
		rules, _ := get(doc, "rules").([]any)
		for i, rule := range rules {
			if p := CheckRuleProfile(get(rule, "when"), AppendPointer(AppendPointer("/rules", i), "when")); len(p) > 0 {
				t.Errorf("%s: %v", name, p)
			}
		}
		for _, ref := range stringsOf(get(doc, "dictionaries")) {
			if n, _, ok := parsePolicyReference(ref, "ns:dictionary:"); !ok || dictionaries[n] == nil {
				t.Errorf("%s: declared dictionary %s is not shipped", name, ref)
			}
		}
		tests, _ := get(doc, "tests").([]any)
		report := RunPackTests(doc, dictionaries)
		if len(tests) == 0 || report.Failed != 0 || report.Passed != len(tests) {
			for _, r := range report.Results {
				if !r.Passed {
					t.Errorf("%s: test %v: got %+v, expected %v", name, r.Name, r.Actual, canonicalText(t, r.Expected))
				}
			}
			t.Errorf("%s: %d tests, %d passed, %d failed", name, len(tests), report.Passed, report.Failed)
		}
		total += report.Passed
	}
	t.Logf("%d shipped rule packs, %d tests passed", len(files), total)
}

// RunPackTests reports a failing case with what the pack actually decided, and checks the reason when one is given.
func TestRunPackTestsReportsFailures(t *testing.T) {
	pack := mustParse(t, `{"pack_id":"ns:rule_pack:caps","version":"1.0.0","domain":"purchase",
		"dictionaries":["ns:dictionary:mcc@1.0.0"],
		"rules":[{"rule_id":"grocery","when":{"in":[{"var":"facts.merchant.category"},{"var":"dict.mcc.codes"}]},
			"effect":"deny","reason":"caps.grocery"},
			{"rule_id":"outside","when":{"==":[1,1]},"effect":"require_approval","reason":"caps.outside"}],
		"tests":[
			{"name":"grocery denied","context":{"facts":{"merchant":{"category":"5411"}}},"expect":{"effect":"deny","reason":"caps.grocery"}},
			{"name":"wrong reason","context":{"facts":{"merchant":{"category":"5411"}}},"expect":{"effect":"deny","reason":"caps.other"}},
			{"name":"out-of-profile rule asks (fail closed)","context":{},"expect":{"effect":"require_approval"}},
			{"name":"expects none","context":{},"expect":{"effect":"none"}}]}`)
	dicts := map[string]any{"mcc": map[string]any{"version": "1.0.0", "codes": []any{"5411"}, "terms": map[string]any{}}}
	r := RunPackTests(pack, dicts)
	if r.Passed != 2 || r.Failed != 2 {
		t.Fatalf("%+v", r)
	}
	if r.Results[1].Passed || r.Results[1].Actual != (PackOutcome{Effect: "deny", Reason: "caps.grocery"}) {
		t.Fatalf("%+v", r.Results[1])
	}
	if r.Results[3].Passed || r.Results[3].Actual.Effect != "require_approval" {
		t.Fatalf("%+v", r.Results[3])
	}
	// Without the dictionary at its declared version the rule reads null: not in, so only the other rule matches.
	dicts["mcc"].(map[string]any)["version"] = "2.0.0"
	if r := RunPackTests(pack, dicts); r.Results[0].Actual.Effect != "require_approval" {
		t.Fatalf("%+v", r.Results[0])
	}
}

func TestDecideGenericDenyOverridesDefaultDeny(t *testing.T) {
	pack := func(rules string) any {
		return mustParse(t, `{"pack_id":"ns:rule_pack:g","version":"1.0.0","domain":"generic","rules":`+rules+`}`)
	}
	permit := pack(`[{"rule_id":"p","when":{"===":[{"var":"request.action"},"read"]},"effect":"permit"}]`)
	deny := pack(`[{"rule_id":"d","when":{"===":[{"var":"request.resource"},"secret"]},"effect":"deny","reason":"g.secret"},
		{"rule_id":"broken","when":{"/":[1,0]},"effect":"permit"}]`)
	ctx := func(action, resource string) map[string]any {
		return map[string]any{"request": map[string]any{"action": action, "resource": resource}, "facts": nil}
	}
	if d := DecideGeneric([]any{permit, deny}, ctx("read", "doc"), nil); d.Decision != "permit" || len(d.Rules) != 1 {
		t.Fatalf("%+v", d)
	}
	if d := DecideGeneric([]any{permit, deny}, ctx("read", "secret"), nil); d.Decision != "deny" || d.Reason != "g.secret" {
		t.Fatalf("%+v", d)
	}
	if d := DecideGeneric([]any{deny}, ctx("write", "doc"), nil); d.Decision != "deny" || d.Reason != "" {
		t.Fatalf("default deny: %+v", d)
	}
}
