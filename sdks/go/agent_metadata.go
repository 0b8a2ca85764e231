package aar

// Agent metadata binding (issue 30, aar-decide/1.5.0), ported from core's decide/checks/agent-metadata.ts and
// evidence/verify-pack-agent-metadata.ts: the decide step (a request's `agent_metadata` must equal the snapshot's
// attested one, else `agent_metadata_mismatch`) and the evidence pack's `agent_metadata` check, with core's detail
// strings and failure codes.

import (
	"context"
	"crypto/sha256"
	"unicode/utf16"
)

var agentMetadataFields = []string{"model", "software_version", "operator"}

// checkAgentMetadata is nil when the request presents no metadata or presents the attested one.
func checkAgentMetadata(c *checkContext) *verdict {
	presented := c.req("agent_metadata")
	if isUndefined(presented) {
		return nil
	}
	failWith := func(detail string) *verdict { v := fail("agent_metadata_mismatch", detail); return &v }
	if !isRecord(presented) {
		return failWith("presented agent metadata is malformed")
	}
	for _, f := range agentMetadataFields {
		if _, ok := get(presented, f).(string); !ok {
			return failWith("presented agent metadata is malformed")
		}
	}
	attested := c.snap("agent_metadata")
	if !isRecord(attested) {
		return failWith("agent metadata presented but none attested")
	}
	for _, f := range agentMetadataFields {
		a, ok := get(attested, f).(string)
		if !ok {
			return failWith("attested agent metadata is malformed")
		}
		if p := get(presented, f).(string); p != a {
			return failWith("agent metadata " + f + " " + quote(p) + " is not the attested one")
		}
	}
	return nil
}

// AgentMetadataDigest is `sha-256:` + base64url of SHA-256 over the RFC 8785 bytes of the whole signed attestation.
func AgentMetadataDigest(doc any) (string, error) {
	b, err := Canonicalize(doc)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha-256:" + encodeBase64URL(sum[:]), nil
}

// onlyKey answers the one key the verifier holds for the agent, whatever kid the document names.
type onlyKey struct{ key JWK }

func (k onlyKey) LookupKey(context.Context, string) (JWK, error) { return k.key, nil }

func wellFormedAttestation(doc map[string]any) bool {
	members := map[string]bool{"schema_version": true, "agent_entity_id": true, "model": true,
		"software_version": true, "operator": true, "issued_at": true, "signature": true}
	if len(doc) != len(members) {
		return false
	}
	for k := range doc {
		if !members[k] {
			return false
		}
	}
	if doc["schema_version"] != "ns.agent_metadata_attestation.v1" {
		return false
	}
	if _, ok := doc["agent_entity_id"].(string); !ok {
		return false
	}
	if _, ok := doc["issued_at"].(string); !ok {
		return false
	}
	if !isRecord(doc["signature"]) {
		return false
	}
	for _, f := range agentMetadataFields {
		s, ok := doc[f].(string)
		if n := len(utf16.Encode([]rune(s))); !ok || n == 0 || n > 256 {
			return false
		}
	}
	return true
}

// VerifyAgentMetadataAttestation: a well-formed attestation of agentID signed by key (never a key it names).
func VerifyAgentMetadataAttestation(ctx context.Context, doc any, agentID string, key any) bool {
	m, ok := doc.(map[string]any)
	if !ok || !wellFormedAttestation(m) || m["agent_entity_id"] != agentID {
		return false
	}
	k, ok := key.(map[string]any)
	if !ok {
		return false
	}
	kty, _ := k["kty"].(string)
	crv, _ := k["crv"].(string)
	x, _ := k["x"].(string)
	return VerifyDocument(ctx, doc, onlyKey{JWK{Kty: kty, Crv: crv, X: x}}).Valid
}

// CheckAgentMetadata is the `agent_metadata` check of an evidence pack: applies is false when nothing in the pack
// carries agent metadata; failure is "" when it passes, else `agent_metadata_missing`,
// `agent_metadata_digest_mismatch`, `agent_metadata_mismatch` or `agent_metadata_signature_invalid`.
func CheckAgentMetadata(ctx context.Context, pack any) (failure string, applies bool) {
	p, ok := pack.(map[string]any)
	if !ok {
		return "", false
	}
	snapshot, _ := p["snapshot"].(map[string]any)
	attested, hasAttested := snapshot["agent_metadata"]
	doc, hasDoc := p["agent_metadata_attestation"]
	node := actorNodeOf(p["decision_map"])
	nodeBinds := false
	if n, ok := node.(map[string]any); ok {
		_, a := n["agent_metadata"]
		_, d := n["attestation_digest"]
		nodeBinds = a || d
	}
	if (!hasAttested || attested == nil) && !hasDoc && !nodeBinds {
		return "", false
	}
	a, aok := attested.(map[string]any)
	d, dok := doc.(map[string]any)
	if !aok || !dok {
		return "agent_metadata_missing", true
	}
	digest, err := AgentMetadataDigest(d)
	if err != nil || !strictEqual(a["digest"], digest) {
		return "agent_metadata_digest_mismatch", true
	}
	n, nok := node.(map[string]any)
	if !nok || !strictEqual(n["attestation_digest"], digest) || !isRecord(n["agent_metadata"]) {
		return "agent_metadata_digest_mismatch", true
	}
	shown := n["agent_metadata"].(map[string]any)
	for _, f := range agentMetadataFields {
		v, ok := a[f].(string)
		if !ok || !strictEqual(d[f], v) || !strictEqual(shown[f], v) {
			return "agent_metadata_mismatch", true
		}
	}
	actorID, ok := get(snapshot["actor"], "entity_id").(string)
	if !ok || !strictEqual(d["agent_entity_id"], actorID) {
		return "agent_metadata_mismatch", true
	}
	if !VerifyAgentMetadataAttestation(ctx, d, actorID, a["public_key_jwk"]) {
		return "agent_metadata_signature_invalid", true
	}
	return "", true
}

func actorNodeOf(m any) any {
	nodes, _ := get(m, "nodes").([]any)
	for _, n := range nodes {
		if isRecord(n) && strictEqual(get(n, "type"), "actor") {
			return n
		}
	}
	return nil
}
