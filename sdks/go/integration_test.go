package aar

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// startServer runs `aar serve` (node packages/server/bin/aar.js, from source) on a free loopback port with a
// temporary data directory, and stops it when the test ends.
func startServer(t *testing.T) (baseURL, token string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is required for the integration test under CI=true")
		}
		t.Skip("node not found: the integration test against a live `aar serve` is skipped")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	baseURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	token = "go-sdk-" + NewIdempotencyKey()
	cmd := exec.Command(node, filepath.Join(repoRoot(t), "packages", "server", "bin", "aar.js"), "serve")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(),
		"AAR_FROM_SOURCE=1", "AAR_HOST=127.0.0.1", fmt.Sprintf("AAR_PORT=%d", port), "AAR_DATA_DIR="+t.TempDir(),
		"AAR_BOOTSTRAP_TOKEN="+token, "AAR_ISSUER_URL="+baseURL, "AAR_PUBLIC_URL="+baseURL, "AAR_LOG_LEVEL=warn",
		"DATABASE_URL=",
	)
	stderr, _ := cmd.StderrPipe()
	var logMu sync.Mutex
	var logs strings.Builder
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			logMu.Lock()
			logs.WriteString(s.Text() + "\n")
			logMu.Unlock()
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	c := NewClient(baseURL, token)
	c.MaxRetries = 0
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := c.Healthz(ctx)
		cancel()
		if err == nil {
			return baseURL, token
		}
		if time.Now().After(deadline) {
			logMu.Lock()
			defer logMu.Unlock()
			t.Fatalf("aar serve did not start: %v\n%s", err, logs.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func TestIntegrationAgainstLiveServer(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test skipped in -short mode")
	}
	baseURL, token := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := NewClient(baseURL, token)
	suffix := NewIdempotencyKey()[:8]

	person, err := admin.CreateEntity(ctx, Object{"type": "person", "id": "alice-" + suffix, "display_name": "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	agentID := "ns:entity:agent:shopper-" + suffix
	agent, err := admin.CreateEntity(ctx, Object{
		"type": "agent", "id": "shopper-" + suffix, "display_name": "Shopper",
		"public_key_jwk": PublicJWK(pub, agentID),
	})
	if err != nil {
		t.Fatal(err)
	}
	if agent["entity_id"] != agentID {
		t.Fatalf("agent %v", agent)
	}
	card, err := admin.CreateCardToken(ctx, Object{
		"id": "tok-" + suffix, "principal_entity_id": person["entity_id"], "network_token": "ntok-" + suffix,
		"network": "visa", "last4": "4242",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateMerchant(ctx, Object{
		"id": "grocer-" + suffix, "display_name": "Grocer", "category": "5411", "jurisdiction": "DE",
	}); err != nil {
		t.Fatal(err)
	}
	perPurchase, _ := MoneyFromMinor(10000, "EUR")
	daily, _ := MoneyFromMinor(30000, "EUR")
	grant, err := admin.CreateGrant(ctx, Object{
		"principal_entity_id": person["entity_id"], "actor_entity_id": agentID,
		"capability_id": "ns:capability:payment_action:card_purchase", "resource_id": card["credential_id"],
		"scope": Object{
			"max_amount_per_purchase": perPurchase, "max_daily_amount": daily,
			"valid_until": time.Now().UTC().Add(365 * 24 * time.Hour).Format(time.RFC3339),
		},
	})
	if err != nil {
		t.Fatal(err)
	}

	runtimeToken, err := admin.CreateToken(ctx, Object{"role": "runtime"})
	if err != nil {
		t.Fatal(err)
	}
	agentClient := NewClient(baseURL, runtimeToken["token"].(string))
	// The agent's key travels as a private JWK (the form the other SDKs take) and is imported with its x checked.
	imported, kid, err := ParsePrivateJWK(mustJSON(t, PrivateJWKOf(priv, agentID)))
	if err != nil || kid != agentID {
		t.Fatalf("private jwk import: %v %q", err, kid)
	}
	agentClient.Signer = &RequestSigner{KeyID: agentID, PrivateKey: imported}
	amount, _ := MoneyFromMinor(4250, "EUR")
	decision, err := agentClient.Authorize(ctx, Object{
		"actor_entity_id": agentID, "principal_entity_id": person["entity_id"],
		"subject":  "ns:capability:payment_action:card_purchase",
		"resource": Object{"merchant_id": "grocer-" + suffix, "amount": amount.Amount, "currency": "EUR"},
		"scope":    Object{"instrument": card["card_token_id"]},
	})
	if err != nil {
		t.Fatal(err)
	}
	if decision["decision"] != DecisionAllow || decision["reason"] != "scope_within_attenuated_authority" {
		t.Fatalf("decision %v %v (grant %v)", decision["decision"], decision["reason"], grant["grant_id"])
	}

	// Offline: the map and the evidence pack verify against the JWKS fetched once, and the pack replays in Go. The
	// key source is named by the issuer URL here and by the JWKS URL below: both reach the same keys.
	jwks := NewJWKSCache(baseURL)
	if v := VerifyDecisionMap(ctx, decision["decision_map"], jwks); !v.Valid {
		t.Fatalf("decision map: %+v", v)
	}
	byJWKSURL := NewJWKSCache(baseURL + "/.well-known/jwks.json")
	if v := VerifyDecisionMap(ctx, decision["decision_map"], byJWKSURL); !v.Valid || jwks.URL != byJWKSURL.URL {
		t.Fatalf("decision map through the jwks url: %+v (%s, %s)", v, jwks.URL, byJWKSURL.URL)
	}
	refs, _ := decision["evidence_refs"].([]any)
	if len(refs) == 0 {
		t.Fatalf("no evidence refs: %v", decision)
	}
	pack, err := admin.GetEvidencePack(ctx, refs[0].(string))
	if err != nil {
		t.Fatal(err)
	}
	result := VerifyEvidencePack(ctx, pack, jwks, VerifyEvidencePackOptions{})
	if !result.Valid || result.ReplayDecision == nil || !result.ReplayDecision.Matches {
		t.Fatalf("evidence pack: %+v", result)
	}
	if result.ReplayDecision.Decision != DecisionAllow {
		t.Fatalf("replayed %+v", result.ReplayDecision)
	}
	// The same pack with the amount edited no longer verifies (digest and replay both catch it).
	edited, _ := ToJSONValue(pack)
	raw, _ := Canonicalize(edited)
	copyPack, _ := ParseJSON(raw)
	obj(obj(copyPack)["request"])["amount"] = Object{"minor": 1.0, "currency": "EUR"}
	if r := VerifyEvidencePack(ctx, copyPack, jwks, VerifyEvidencePackOptions{}); r.Valid {
		t.Fatal("an edited pack verified")
	}

	// Without the agent's signature the service denies (payload_signature_missing): fail closed.
	unsigned := NewClient(baseURL, runtimeToken["token"].(string))
	denied, err := unsigned.Authorize(ctx, Object{
		"actor_entity_id": agentID, "principal_entity_id": person["entity_id"],
		"subject":  "ns:capability:payment_action:card_purchase",
		"resource": Object{"merchant_id": "grocer-" + suffix, "amount": amount.Amount, "currency": "EUR"},
		"scope":    Object{"instrument": card["card_token_id"]},
	})
	if err != nil {
		t.Fatal(err)
	}
	if denied["decision"] != DecisionDeny || denied["reason"] != "payload_signature_missing" {
		t.Fatalf("unsigned request: %v %v", denied["decision"], denied["reason"])
	}

	// A bad request is a typed error naming the field.
	_, err = admin.CreateMerchant(ctx, Object{"id": "m-" + suffix, "display_name": "M", "category": "5411", "jurisdiction": "germany"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Code == "" || len(apiErr.Errors) == 0 {
		t.Fatalf("bad request: %v", err)
	}
	if !strings.Contains(apiErr.Errors[0].Path, "jurisdiction") {
		t.Fatalf("error does not name the field: %+v", apiErr.Errors)
	}

	// The grant's delegation chain verifies offline.
	chain, err := admin.GetGrantChain(ctx, grant["grant_id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	jwksSet, _ := jwks.Get(ctx)
	if r := VerifyDelegationChain(ctx, chain, jwksSet, time.Now().UTC().Format(time.RFC3339)); !r.Valid {
		t.Fatalf("chain: %+v", r.Problems)
	}

	// The decision's proof bundle: assembled by the service, verified offline in Go (the ten checks), one part read
	// alone hashes to its reference, and the service's own verification agrees.
	bundle, err := admin.AssembleBundle(ctx, Object{
		"policy_decision_id": decision["policy_decision_id"], "purpose": Object{"purpose": "chargeback_dispute"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := VerifyBundle(ctx, bundle, jwksSet, VerifyBundleOptions{}); !v.Valid || len(v.Checks) != 10 {
		t.Fatalf("bundle: %+v", v.Checks)
	}
	stored, err := admin.GetBundle(ctx, bundle["bundle_id"].(string))
	if err != nil || !sameJSON(stored, bundle) {
		t.Fatalf("stored bundle differs: %v", err)
	}
	part, err := admin.GetBundlePart(ctx, bundle["bundle_id"].(string), "evidence_pack")
	if err != nil {
		t.Fatal(err)
	}
	partValue, _ := ParseJSON(part)
	digest, _ := BundlePartDigest(partValue)
	if ref := obj(bundle["references"].([]any)[5]); ref["name"] != "evidence_pack" || ref["sha256"] != digest {
		t.Fatalf("part digest %s, reference %v", digest, ref)
	}
	tampered, _ := ParseJSON(mustCanonical(t, bundle))
	obj(obj(tampered)["runtime_decision"])["decision"] = DecisionDeny
	if v := VerifyBundle(ctx, tampered, jwksSet, VerifyBundleOptions{}); v.Valid || v.Checks[1].OK {
		t.Fatalf("a tampered bundle verified: %+v", v.Checks)
	}
	remote, err := admin.VerifyBundleRemote(ctx, Object{"bundle": bundle})
	if err != nil || remote["valid"] != true {
		t.Fatalf("service verification: %v %v", remote, err)
	}

	// The console's read routes see the decision; the credential describes itself.
	found, err := admin.SearchDecisions(url.Values{"actor_entity_id": {agentID}, "decision": {DecisionAllow}}).All(ctx)
	if err != nil || len(found) != 1 || found[0]["policy_decision_id"] != decision["policy_decision_id"] {
		t.Fatalf("search: %v %v", found, err)
	}
	self, err := agentClient.TokenSelf(ctx)
	if err != nil || self["role"] != "runtime" || self["token_id"] != runtimeToken["token_id"] {
		t.Fatalf("tokens/self: %v %v", self, err)
	}
	frameworks, err := admin.ComplianceFrameworks(ctx)
	if err != nil || len(frameworks["frameworks"].([]any)) < 6 {
		t.Fatalf("frameworks: %v", err)
	}
}

func mustCanonical(t *testing.T, v any) []byte {
	value, err := ToJSONValue(v)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := Canonicalize(value)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
