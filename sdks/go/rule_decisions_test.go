package aar

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDecideAgreesWithCoreOnRuleDecisions replays vectors/rule-decisions.json (core's decide with rule packs in the
// snapshot's policy_set: deny, require_approval, obligate, shadow, approval retry, error rule, several packs,
// alternatives): every result must equal core's, canonical JSON for canonical JSON.
func TestDecideAgreesWithCoreOnRuleDecisions(t *testing.T) {
	path := filepath.Join(repoRoot(t), "vectors", "rule-decisions.json")
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing", path)
		}
		t.Skipf("NOTICE: %s not present: SKIPPED", path)
	}
	raw := readJSONFile(t, path)
	cases, ok := raw.([]any)
	if !ok {
		cases, _ = obj(raw)["cases"].([]any)
	}
	if len(cases) == 0 {
		t.Fatal("rule-decisions.json holds no case")
	}
	agree, ruled, shadowed := 0, 0, 0
	for i, c := range cases {
		m := obj(c)
		now, _ := m["now"].(string)
		got := DecideJSON(m["request"], m["snapshot"], now)
		if g, w := canonicalText(t, asJSON(t, got)), canonicalText(t, m["result"]); g != w {
			t.Errorf("case %d %v:\n got  %s\n want %s", i, m["name"], g, w)
			continue
		}
		agree++
		if ruleReasonPattern.MatchString(got.Reason) {
			ruled++
		}
		if got.Shadow != nil {
			shadowed++
		}
	}
	if agree != len(cases) {
		t.Fatalf("%d of %d rule decisions agree with core", agree, len(cases))
	}
	if ruled == 0 || shadowed == 0 {
		t.Fatalf("no case decided by a rule (%d) or recording a shadow pack (%d)", ruled, shadowed)
	}
	t.Logf("%d rule decisions agree with core (%d decided by a rule, %d with shadow outcomes)", agree, ruled, shadowed)
}
