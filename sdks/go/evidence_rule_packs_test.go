package aar

import (
	"context"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A key of the test's own beside the golden JWKS: rule packs it signs verify, the golden pack's signatures still do.
var (
	policyTestKey = ed25519.NewKeyFromSeed(make([]byte, 32))
	policyKeyID   = "test-policy-key"
)

func policyTestKeys(t *testing.T) JWKS {
	keys := jwksOf(t, readJSONFile(t, filepath.Join(repoRoot(t), "vectors", "sdk", "jwks.json")))
	keys.Keys = append(keys.Keys, PublicJWK(policyTestKey.Public().(ed25519.PublicKey), policyKeyID))
	return keys
}

func signedTestPack(t *testing.T, reason string) map[string]any {
	doc, err := SignDocument(mustParse(t, `{"schema_version":"ns.rule_pack.v1","pack_id":"ns:rule_pack:velocity",
		"version":"1.0.0","domain":"purchase","title":"velocity","description":"velocity","dictionaries":[],
		"rules":[{"rule_id":"never","title":"t","description":"d","when":false,"effect":"deny","reason":"`+reason+`"}],
		"tests":[]}`), policyKeyID, policyTestKey)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// evidenceWith is the golden allowed evidence pack with a policy set whose decision map names `named` (the pack's
// and map's signatures then fail: only the policy_set check is judged here).
func evidenceWith(t *testing.T, document any, mode string, named any) any {
	pack := obj(obj(obj(readJSONFile(t, filepath.Join(repoRoot(t), "vectors", "sdk", "evidence-pack-allowed-valid.json")))["input"])["pack"])
	obj(pack["snapshot"])["policy_set"] = map[string]any{"packs": []any{map[string]any{
		"activation_id": "ns:rule_activation:1", "mode": mode, "document": document}}, "dictionaries": map[string]any{}}
	for _, n := range obj(pack["decision_map"])["nodes"].([]any) {
		if obj(n)["type"] == "policy" {
			obj(n)["packs"] = named
		}
	}
	return pack
}

func policySetCheck(t *testing.T, pack any, keys KeySource) EvidenceCheck {
	r := VerifyEvidencePack(context.Background(), pack, keys, VerifyEvidencePackOptions{})
	names := []string{}
	for _, c := range r.Checks {
		names = append(names, c.Check)
	}
	if !reflect.DeepEqual(names, checksWithout("mandates", "agent_metadata")) {
		t.Fatalf("checks %v", names)
	}
	return r.Checks[len(r.Checks)-2]
}

// checksWithout is EvidenceChecks less a conditional check the pack under test does not trigger.
func checksWithout(skipped ...string) []string {
	out := []string{}
	for _, c := range EvidenceChecks {
		keep := true
		for _, s := range skipped {
			keep = keep && c != s
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}

func TestEvidencePolicySetCheck(t *testing.T) {
	keys := policyTestKeys(t)
	doc := signedTestPack(t, "velocity.never")
	digest, _ := PolicyDocumentDigest(doc)
	ref := func(mutate func(map[string]any)) []any {
		r := map[string]any{"pack_id": "ns:rule_pack:velocity", "version": "1.0.0", "digest": digest, "mode": "enforce"}
		if mutate != nil {
			mutate(r)
		}
		return []any{r}
	}
	if c := policySetCheck(t, evidenceWith(t, doc, "enforce", ref(nil)), keys); !c.Valid {
		t.Fatalf("the named, signed pack: %+v", c)
	}
	edited := map[string]any{}
	for k, v := range doc {
		edited[k] = v
	}
	edited["rules"] = []any{}
	other := signedTestPack(t, "velocity.other")
	cases := []struct {
		name    string
		pack    any
		keys    KeySource
		failure string
	}{
		{"an edited rule no longer verifies", evidenceWith(t, edited, "enforce", ref(nil)), keys, "policy_signature_invalid"},
		{"a signer the caller does not trust", evidenceWith(t, doc, "enforce", ref(nil)),
			jwksOf(t, readJSONFile(t, filepath.Join(repoRoot(t), "vectors", "sdk", "jwks.json"))), "policy_signature_invalid"},
		{"another signed pack than the map names", evidenceWith(t, other, "enforce", ref(nil)), keys, "policy_digest_mismatch"},
		{"a shadow pack replayed as enforce", evidenceWith(t, doc, "shadow", ref(nil)), keys, "policy_digest_mismatch"},
		{"another version", evidenceWith(t, doc, "enforce", ref(func(r map[string]any) { r["version"] = "1.0.1" })), keys, "policy_digest_mismatch"},
		{"a pack the map does not name", evidenceWith(t, doc, "enforce", []any{}), keys, "policy_digest_mismatch"},
		{"a map without packs", evidenceWith(t, doc, "enforce", nil), keys, "malformed_policy_set"},
	}
	// A map naming packs over a snapshot without a policy set: the packs replay would need are missing.
	dropped := evidenceWith(t, doc, "enforce", ref(nil))
	delete(obj(obj(dropped)["snapshot"]), "policy_set")
	cases = append(cases, struct {
		name    string
		pack    any
		keys    KeySource
		failure string
	}{"the snapshot dropped its policy set", dropped, keys, "malformed_policy_set"})
	for _, c := range cases {
		if got := policySetCheck(t, c.pack, c.keys); got.Valid || got.Failure != c.failure {
			t.Errorf("%s: %+v, want %s", c.name, got, c.failure)
		}
	}
	// Without a policy set the check does not run: the golden vectors keep their eight checks.
	r := VerifyEvidencePack(context.Background(), obj(obj(readJSONFile(t, filepath.Join(repoRoot(t), "vectors", "sdk",
		"evidence-pack-allowed-valid.json")))["input"])["pack"], keys, VerifyEvidencePackOptions{})
	if !r.Valid || len(r.Checks) != 8 {
		t.Fatalf("golden pack: %+v", r)
	}
}

// TestEvidencePackWithRulePacksVerifiesOffline: the service's own evidence pack of a decision made under rule packs
// (vectors/evidence-pack-with-rule-packs.json: the pack and the JWKS) verifies, every check including policy_set,
// and the Go decide replays the recorded answer.
func TestEvidencePackWithRulePacksVerifiesOffline(t *testing.T) {
	path := filepath.Join(repoRoot(t), "vectors", "evidence-pack-with-rule-packs.json")
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing", path)
		}
		t.Skipf("NOTICE: %s not present: SKIPPED", path)
	}
	vector := obj(readJSONFile(t, path))
	in, want := obj(vector["input"]), obj(vector["want"])
	pack, keys := in["pack"], jwksOf(t, in["jwks"])
	r := VerifyEvidencePack(context.Background(), pack, keys, VerifyEvidencePackOptions{})
	// every check but `mandates` (no grant of this pack was made from a mandate) and `agent_metadata` (aar-decide/1.3.0)
	if !r.Valid || len(r.Checks) != len(EvidenceChecks)-2 || want["valid"] != true {
		t.Fatalf("%+v", r.Checks)
	}
	if r.ReplayDecision == nil || !r.ReplayDecision.Matches || r.ReplayDecision.Decision != want["decision"] ||
		r.ReplayDecision.Reason != want["reason"] || !ruleReasonPattern.MatchString(r.ReplayDecision.Reason) {
		t.Fatalf("replay %+v, want %v", r.ReplayDecision, want)
	}
	named := []any{}
	for _, p := range get(get(obj(pack)["snapshot"], "policy_set"), "packs").([]any) {
		named = append(named, get(get(p, "document"), "pack_id"))
	}
	if !reflect.DeepEqual(named, want["policy_packs"]) {
		t.Fatalf("policy packs %v, want %v", named, want["policy_packs"])
	}
	if m := VerifyDecisionMap(context.Background(), obj(pack)["decision_map"], keys); !m.Valid {
		t.Fatalf("decision map %+v", m)
	}
	// Editing a rule of the recorded pack breaks the policy_set check.
	doc := obj(obj(obj(obj(obj(pack)["snapshot"])["policy_set"])["packs"].([]any)[0])["document"])
	doc["title"] = "edited"
	if c := policySetCheck(t, pack, keys); c.Valid {
		t.Fatalf("edited pack accepted: %+v", c)
	}
}

// A decision map may carry a rule's reason (aar-decide/1.3.0): its decision is then the rule's effect, deny or
// require_approval, never an allow.
func TestDecisionMapAcceptsRuleReasons(t *testing.T) {
	keys := policyTestKeys(t)
	base := obj(obj(readJSONFile(t, filepath.Join(repoRoot(t), "vectors", "sdk", "decision-map-deny-valid.json")))["input"])["document"]
	resign := func(decision, reason string) map[string]any {
		m := map[string]any{}
		for k, v := range obj(base) {
			if k != "signature" {
				m[k] = v
			}
		}
		m["decision"], m["reason"] = decision, reason
		signed, err := SignDocument(m, policyKeyID, policyTestKey)
		if err != nil {
			t.Fatal(err)
		}
		return signed
	}
	ctx := context.Background()
	for _, d := range []string{DecisionDeny, DecisionRequireApproval} {
		if r := VerifyDecisionMap(ctx, resign(d, "velocity.hourly_count_exceeded"), keys); !r.Valid {
			t.Errorf("%s: %+v", d, r)
		}
	}
	if r := VerifyDecisionMap(ctx, resign(DecisionAllow, "velocity.hourly_count_exceeded"), keys); r.Valid || r.Failure != "malformed_map" {
		t.Errorf("allow with a rule reason: %+v", r)
	}
	if r := VerifyDecisionMap(ctx, resign(DecisionDeny, "Velocity.x"), keys); r.Valid || r.Detail != "/reason is not a reason code" {
		t.Errorf("not a rule reason: %+v", r)
	}
}
