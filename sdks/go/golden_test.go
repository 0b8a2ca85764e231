package aar

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestGoldenVectors walks vectors/sdk/index.json: documents the service produced, valid and tampered, each with
// its expected outcome; the three SDKs walk the same files with vectors/sdk/jwks.json as their only trust.
func TestGoldenVectors(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "vectors", "sdk")
	if _, err := os.Stat(filepath.Join(dir, "index.json")); err != nil {
		t.Skip("vectors/sdk/index.json not present")
	}
	index := obj(readJSONFile(t, filepath.Join(dir, "index.json")))
	jwks := jwksOf(t, readJSONFile(t, filepath.Join(dir, index["jwks"].(string))))
	ctx := context.Background()
	vectors := index["vectors"].([]any)
	if len(vectors) == 0 {
		t.Fatal("empty index")
	}
	kinds := map[string]int{}
	for _, entry := range vectors {
		e := obj(entry)
		file, kind, want := e["file"].(string), e["kind"].(string), obj(e["want"])
		kinds[kind]++
		t.Run(file, func(t *testing.T) {
			in := obj(obj(readJSONFile(t, filepath.Join(dir, file)))["input"])
			wantValid := want["valid"] == true
			wantCode, _ := want["code"].(string)
			var valid bool
			var code string
			switch kind {
			case "decision_map":
				r := VerifyDecisionMap(ctx, in["document"], jwks)
				valid, code = r.Valid, r.Failure
			case "evidence_pack":
				r := VerifyEvidencePack(ctx, in["pack"], jwks, VerifyEvidencePackOptions{})
				valid = r.Valid
				failures := obj(want["failures"])
				for _, c := range r.Checks {
					w, listed := failures[c.Check]
					if listed && (c.Valid || c.Failure != w) {
						t.Errorf("check %s: %+v, want %v", c.Check, c, w)
					}
					if !listed && !c.Valid {
						t.Errorf("check %s failed unexpectedly: %s", c.Check, c.Failure)
					}
					if !c.Valid && code == "" {
						code = c.Failure
					}
				}
				if wantValid && (r.ReplayDecision == nil || !r.ReplayDecision.Matches) {
					t.Errorf("replay %+v", r.ReplayDecision)
				}
			case "delegation_chain":
				now, _ := in["now"].(string)
				r := VerifyDelegationChain(ctx, in["chain"], jwks, now)
				valid = r.Valid
				for _, p := range r.Problems {
					if p.Code == wantCode || code == "" {
						code = p.Code
					}
				}
			case "checkpoint_inclusion":
				err := VerifyInclusionInCheckpoint(ctx, []byte(in["entry"].(string)), in["proof"], in["checkpoint"], jwks, "")
				valid = err == nil
				if err != nil {
					code = err.Error()
				}
			case "webhook":
				r := VerifyWebhook(ctx, deliveryOptionsWithKeys(t, in, jwks))
				valid, code = r.Valid, r.Code
			default:
				t.Fatalf("unknown kind %s", kind)
			}
			if valid != wantValid || (!wantValid && code != wantCode) {
				t.Fatalf("got valid=%v code=%q, want valid=%v code=%q", valid, code, wantValid, wantCode)
			}
		})
	}
	t.Logf("golden vectors by kind: %v", kinds)
}

func deliveryOptionsWithKeys(t testing.TB, in map[string]any, keys JWKS) WebhookVerifyOptions {
	o := deliveryOptions(t, in)
	if o.Keys == nil && o.Profile != ProfileSharedSecret {
		o.Keys = keys
	}
	return o
}
