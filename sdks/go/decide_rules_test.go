package aar

import (
	"path/filepath"
	"reflect"
	"testing"
)

// decisionVector is one case of vectors/decisions: its request, snapshot and now.
func decisionVector(t *testing.T, name string) (request, snapshot map[string]any, now string) {
	t.Helper()
	in := obj(obj(readJSONFile(t, filepath.Join(vectorPath(t, "decisions"), name+".json")))["input"])
	return obj(in["request"]), obj(in["snapshot"]), in["now"].(string)
}

func testPack(name, mode string, rules ...string) map[string]any {
	list := []any{}
	for i, r := range rules {
		list = append(list, map[string]any{"rule_id": name + "-" + string(rune('a'+i))})
		for k, v := range obj(mustParseT(r)) {
			list[i].(map[string]any)[k] = v
		}
	}
	return map[string]any{"activation_id": "ns:rule_activation:" + name, "mode": mode, "document": map[string]any{
		"schema_version": "ns.rule_pack.v1", "pack_id": "ns:rule_pack:" + name, "version": "1.0.0",
		"domain": "purchase", "dictionaries": []any{"ns:dictionary:mcc@1.0.0"}, "rules": list, "tests": []any{},
	}}
}

func mustParseT(text string) any {
	v, err := ParseJSON([]byte(text))
	if err != nil {
		panic(text + ": " + err.Error())
	}
	return v
}

func withPolicySet(snapshot map[string]any, packs ...map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range snapshot {
		out[k] = v
	}
	list := make([]any, len(packs))
	for i, p := range packs {
		list[i] = p
	}
	out["policy_set"] = map[string]any{"packs": list, "dictionaries": map[string]any{"mcc": map[string]any{
		"dictionary_id": "ns:dictionary:mcc", "version": "1.0.0", "digest": "sha-256:x",
		"codes": []any{"5411", "5921"}, "terms": map[string]any{"5411": map[string]any{"label": "Grocery"}},
	}}}
	out["facts"] = map[string]any{"counters": map[string]any{"purchases_1h": 6.0}}
	return out
}

const (
	denyOverAmount  = `{"when":{">":[{"var":"request.amount.minor"},4000]},"effect":"deny","reason":"caps.too_much"}`
	askFirstTime    = `{"when":{">=":[{"var":"facts.counters.purchases_1h"},5]},"effect":"require_approval","reason":"velocity.hourly"}`
	obligateReceipt = `{"when":{"in":["5411",{"var":"dict.mcc.codes"}]},"effect":"obligate","obligations":[{"type":"receipt.keep","days":30},{"type":"audit.emit"}],"stop_conditions":["merchant.changed","scope.attenuated"]}`
	neverMatches    = `{"when":{"===":[{"var":"request.action"},"refund"]},"effect":"deny","reason":"caps.refund"}`
	throws          = `{"when":{"*":[]},"effect":"deny","reason":"broken.rule"}`
)

func TestDecideWithRulePacks(t *testing.T) {
	request, snapshot, now := decisionVector(t, "allow-execute-with-basket")
	basket := Obligation{Type: "basket_hash_binding", BasketHash: "sha-256:fb9aLSdx9xFZ4sVF4GPPdRglXBwZHOyuHlw4j32BG9o"}
	diag := func(pack, rule, effect string, err bool) RuleDiagnostic {
		return RuleDiagnostic{PackID: "ns:rule_pack:" + pack, Version: "1.0.0", RuleID: rule, Effect: effect, Matched: true, Error: err}
	}

	t.Run("a deny rule decides with its reason; the approval check is skipped; nothing is bound", func(t *testing.T) {
		r := DecideJSON(request, withPolicySet(snapshot, testPack("caps", "enforce", neverMatches, denyOverAmount, obligateReceipt)), now)
		if r.Decision != DecisionDeny || r.Reason != "caps.too_much" || r.Reservation != nil {
			t.Fatalf("%s / %s", r.Decision, r.Reason)
		}
		if last := r.Diagnostics.Checks[7]; last.Check != "approval" || last.Outcome != "skip" {
			t.Fatalf("approval check %+v", last)
		}
		if !reflect.DeepEqual(asJSON(t, r.Obligations), asJSON(t, []Obligation{{Type: "audit.emit"}})) || len(r.StopConditions) != 0 {
			t.Fatalf("obligations %v stop %v", asJSON(t, r.Obligations), r.StopConditions)
		}
		want := []RuleDiagnostic{diag("caps", "caps-b", "deny", false), diag("caps", "caps-c", "obligate", false)}
		if r.Diagnostics.Rules == nil || !reflect.DeepEqual(*r.Diagnostics.Rules, want) {
			t.Fatalf("rules %+v", r.Diagnostics.Rules)
		}
	})

	t.Run("require_approval asks; obligations of every matched rule are added once", func(t *testing.T) {
		r := DecideJSON(request, withPolicySet(snapshot, testPack("velocity", "enforce", obligateReceipt, askFirstTime)), now)
		if r.Decision != DecisionRequireApproval || r.Reason != "velocity.hourly" || len(r.StopConditions) != 0 {
			t.Fatalf("%s / %s %v", r.Decision, r.Reason, r.StopConditions)
		}
		want := asJSON(t, []any{Obligation{Type: "audit.emit"}, basket, map[string]any{"type": "receipt.keep", "days": 30}})
		if got := asJSON(t, r.Obligations); !reflect.DeepEqual(got, want) {
			t.Fatalf("obligations %v", got)
		}
	})

	t.Run("obligate adds obligations and new stop conditions to an allow", func(t *testing.T) {
		r := DecideJSON(request, withPolicySet(snapshot, testPack("receipts", "enforce", obligateReceipt)), now)
		if r.Decision != DecisionAllow || r.Reason != "scope_within_attenuated_authority" || r.Reservation == nil {
			t.Fatalf("%s / %s", r.Decision, r.Reason)
		}
		wantStop := []string{"actor.stop_signal", "delegation.revoked", "scope.attenuated", "merchant.changed"}
		if !reflect.DeepEqual(r.StopConditions, wantStop) || len(r.Obligations) != 3 {
			t.Fatalf("stop %v obligations %v", r.StopConditions, asJSON(t, r.Obligations))
		}
	})

	t.Run("a shadow pack is recorded and changes nothing", func(t *testing.T) {
		plain := DecideJSON(request, withPolicySet(snapshot), now)
		r := DecideJSON(request, withPolicySet(snapshot, testPack("caps", "shadow", obligateReceipt, denyOverAmount)), now)
		if r.Decision != plain.Decision || r.Reason != plain.Reason || len(*r.Diagnostics.Rules) != 0 {
			t.Fatalf("%s / %s", r.Decision, r.Reason)
		}
		want := []ShadowOutcome{{PackID: "ns:rule_pack:caps", Version: "1.0.0", Effect: "deny", Reason: "caps.too_much"}}
		if !reflect.DeepEqual(r.Shadow, want) {
			t.Fatalf("shadow %+v", r.Shadow)
		}
	})

	t.Run("a rule that throws counts as matched (fail closed)", func(t *testing.T) {
		r := DecideJSON(request, withPolicySet(snapshot, testPack("broken", "enforce", throws)), now)
		if r.Decision != DecisionDeny || r.Reason != "broken.rule" || !(*r.Diagnostics.Rules)[0].Error {
			t.Fatalf("%s / %s %+v", r.Decision, r.Reason, r.Diagnostics.Rules)
		}
	})

	t.Run("generic packs are never evaluated by purchase decide", func(t *testing.T) {
		p := testPack("generic", "enforce", denyOverAmount)
		p["document"].(map[string]any)["domain"] = "generic"
		if r := DecideJSON(request, withPolicySet(snapshot, p), now); r.Decision != DecisionAllow {
			t.Fatalf("%s / %s", r.Decision, r.Reason)
		}
	})

	t.Run("a deny of checks 1-7 stands: rules are not evaluated", func(t *testing.T) {
		req, snap, now := decisionVector(t, "deny-merchant-unknown")
		r := DecideJSON(req, withPolicySet(snap, testPack("caps", "enforce", denyOverAmount), testPack("s", "shadow", denyOverAmount)), now)
		if r.Reason != "merchant_unknown" || r.Diagnostics.Rules != nil || r.Shadow != nil {
			t.Fatalf("%s %+v %+v", r.Reason, r.Diagnostics.Rules, r.Shadow)
		}
	})

	t.Run("elevated risk stands over require_approval, a deny rule over elevated risk", func(t *testing.T) {
		req, snap, now := decisionVector(t, "approval-risk-elevated")
		if r := DecideJSON(req, withPolicySet(snap, testPack("velocity", "enforce", askFirstTime)), now); r.Reason != "risk_state_elevated" {
			t.Fatalf("%s", r.Reason)
		}
		if r := DecideJSON(req, withPolicySet(snap, testPack("caps", "enforce", denyOverAmount)), now); r.Reason != "caps.too_much" {
			t.Fatalf("%s", r.Reason)
		}
	})

	t.Run("with policy_decision_id the approval decides a require_approval rule", func(t *testing.T) {
		req, snap, now := decisionVector(t, "allow-approved-by-principal")
		r := DecideJSON(req, withPolicySet(snap, testPack("velocity", "enforce", askFirstTime)), now)
		if r.Decision != DecisionAllow || r.Reason != "approved_by_principal" || len(*r.Diagnostics.Rules) != 1 {
			t.Fatalf("%s / %s", r.Decision, r.Reason)
		}
	})
}

// A policy set of any shape never panics and never loosens: a present but unreadable set means rules were evaluated
// and none matched (diagnostics.rules is []), as in core; malformed rules are ignored, out-of-profile ones fail closed.
func TestDecideWithHostilePolicySets(t *testing.T) {
	request, snapshot, now := decisionVector(t, "allow-execute-eur-root-grant")
	for _, set := range []string{`null`, `"x"`, `{"packs":"x","dictionaries":7}`,
		`{"packs":[1,null,{"mode":"enforce","document":"x"},{"mode":"enforce","document":{"domain":"purchase","rules":[1,{"rule_id":5},{"rule_id":"a","effect":"permit","when":true},{"rule_id":"b","effect":"deny","when":true,"reason":"nodot"}]}}]}`} {
		snap := map[string]any{}
		for k, v := range snapshot {
			snap[k] = v
		}
		snap["policy_set"] = mustParse(t, set)
		r := DecideJSON(request, snap, now)
		if r.Decision != DecisionAllow || r.Diagnostics.Rules == nil || len(*r.Diagnostics.Rules) != 0 || r.Shadow != nil {
			t.Errorf("%s: %s / %s %+v", set, r.Decision, r.Reason, r.Diagnostics.Rules)
		}
	}
	snap := withPolicySet(snapshot, testPack("loose", "enforce", `{"when":{"==":[1,2]},"effect":"deny","reason":"loose.eq"}`))
	if r := DecideJSON(request, snap, now); r.Decision != DecisionDeny || r.Reason != "loose.eq" || !(*r.Diagnostics.Rules)[0].Error {
		t.Fatalf("an out-of-profile deny rule must deny: %s / %s", r.Decision, r.Reason)
	}
}
