package aar

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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
	file := obj(readJSONFile(t, path))
	cases, _ := file["cases"].([]any)
	if file["count"] != 42.0 || len(cases) != 42 {
		t.Fatalf("rule-decisions.json holds %d cases (count %v), expected 42", len(cases), file["count"])
	}
	keys := jwksOf(t, file["jwks"])
	agree, ruled, shadowed, signed := 0, 0, 0, 0
	for i, c := range cases {
		m := obj(c)
		// Every pack document is the generator's signed one (except in the case that edits one after signing).
		packs, _ := get(get(m["snapshot"], "policy_set"), "packs").([]any)
		edited, _ := m["name"].(string)
		for _, p := range packs {
			doc := get(p, "document")
			if v := VerifyDocument(context.Background(), doc, keys); !v.Valid && !strings.Contains(edited, "(edited snapshot)") {
				t.Errorf("case %d: pack %v does not verify: %s", i, get(doc, "pack_id"), v.Failure)
			} else if _, err := PolicyDocumentDigest(doc); err != nil {
				t.Errorf("case %d: digest: %v", i, err)
			}
			signed++
		}
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
	t.Logf("%d rule decisions agree with core (%d decided by a rule, %d with shadow outcomes, %d signed pack documents)",
		agree, ruled, shadowed, signed)
}
