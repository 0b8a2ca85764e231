package aar

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestAgentMetadataPacksVerify walks vectors/evidence-packs-with-agent-metadata.json (issue 30): evidence packs the
// service made for an agent that attested its metadata with its own key verify and replay here (the
// `agent_metadata_mismatch` deny included), and edits of the attestation fail the `agent_metadata` check with core's
// failure codes.
func TestAgentMetadataPacksVerify(t *testing.T) {
	file := obj(readJSONFile(t, filepath.Join(repoRoot(t), "vectors", "evidence-packs-with-agent-metadata.json")))
	keys := jwksOf(t, file["jwks"])
	cases, _ := file["cases"].([]any)
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	ctx := context.Background()
	for _, c := range cases {
		name, pack := obj(c)["name"].(string), obj(c)["pack"]
		r := VerifyEvidencePack(ctx, pack, keys, VerifyEvidencePackOptions{})
		if !r.Valid {
			t.Fatalf("%s: %+v", name, r.Checks)
		}
		found := false
		for _, ch := range r.Checks {
			found = found || (ch.Check == "agent_metadata" && ch.Valid)
		}
		if !found || r.ReplayDecision == nil || r.ReplayDecision.Reason != obj(c)["reason"] {
			t.Fatalf("%s: agent_metadata check or replay missing: %+v", name, r)
		}
	}
	clone := func() map[string]any {
		b, _ := json.Marshal(obj(cases[0])["pack"])
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	edited := clone()
	obj(edited["agent_metadata_attestation"])["model"] = "another"
	if f, _ := CheckAgentMetadata(ctx, edited); f != "agent_metadata_digest_mismatch" {
		t.Fatalf("edited: %q", f)
	}
	dropped := clone()
	delete(dropped, "agent_metadata_attestation")
	if f, _ := CheckAgentMetadata(ctx, dropped); f != "agent_metadata_missing" {
		t.Fatalf("dropped: %q", f)
	}
	// another key in the snapshot: the document's signature no longer verifies
	swapped := clone()
	obj(obj(swapped["snapshot"])["agent_metadata"])["public_key_jwk"] = map[string]any{
		"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}
	if f, _ := CheckAgentMetadata(ctx, swapped); f != "agent_metadata_signature_invalid" {
		t.Fatalf("swapped key: %q", f)
	}
	old := clone()
	delete(old, "agent_metadata_attestation")
	delete(obj(old["snapshot"]), "agent_metadata")
	node := obj(actorNodeOf(old["decision_map"]))
	delete(node, "agent_metadata")
	delete(node, "attestation_digest")
	if _, applies := CheckAgentMetadata(ctx, old); applies {
		t.Fatal("an older pack must not record the check")
	}
}

// TestDecideJudgesAgentMetadata: the port's decide step against core's detail strings.
func TestDecideJudgesAgentMetadata(t *testing.T) {
	file := obj(readJSONFile(t, filepath.Join(repoRoot(t), "vectors", "evidence-packs-with-agent-metadata.json")))
	pack := obj(obj(file["cases"].([]any)[0])["pack"])
	req, snap, now := obj(pack["request"]), obj(pack["snapshot"]), pack["now"].(string)
	if r := DecideJSON(req, snap, now); r.Decision != DecisionAllow {
		t.Fatalf("matching: %+v", r)
	}
	other := map[string]any{}
	for k, v := range req {
		other[k] = v
	}
	other["agent_metadata"] = map[string]any{"model": "m2", "software_version": "shopper/2.4.1", "operator": "Example Agents GmbH"}
	r := DecideJSON(other, snap, now)
	b, _ := json.Marshal(r)
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	checks, _ := obj(got["diagnostics"])["checks"].([]any)
	if d := obj(checks[1])["detail"]; r.Reason != "agent_metadata_mismatch" || d != "agent metadata model `m2` is not the attested one" {
		t.Fatalf("mismatch: %s", b)
	}
	delete(snap, "agent_metadata")
	if r := DecideJSON(req, snap, now); r.Reason != "agent_metadata_mismatch" {
		t.Fatalf("none attested: %+v", r)
	}
}
