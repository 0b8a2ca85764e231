package aar

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type bundleCase struct {
	file   string
	bundle any
	jwks   JWKS
	origin string
	valid  bool
	fail   []string
}

func loadBundleCases(t *testing.T) []bundleCase {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(vectorPath(t, "bundles"), "*.json"))
	var out []bundleCase
	for _, f := range files {
		c := obj(readJSONFile(t, f))
		in, want := obj(c["input"]), obj(c["want"])
		origin, _ := in["origin"].(string)
		fail := []string{}
		for _, n := range want["failing"].([]any) {
			fail = append(fail, n.(string))
		}
		out = append(out, bundleCase{filepath.Base(f), in["bundle"], jwksOf(t, in["jwks"]), origin, want["valid"] == true, fail})
	}
	return out
}

func checkNames(r BundleVerification) []string {
	out := []string{}
	for _, c := range r.Checks {
		out = append(out, c.Name)
	}
	return out
}

// TestBundleVectors walks vectors/bundles (assembled by the service; one mutated case per check): each case fails
// exactly the checks it names, and every answer lists the ten checks in their order.
func TestBundleVectors(t *testing.T) {
	cases := loadBundleCases(t)
	valid, covered := 0, map[string]bool{}
	for _, c := range cases {
		c := c
		if c.valid {
			valid++
		}
		for _, n := range c.fail {
			covered[n] = true
		}
		t.Run(c.file, func(t *testing.T) {
			r := VerifyBundle(context.Background(), c.bundle, c.jwks, VerifyBundleOptions{Origin: c.origin})
			if !reflect.DeepEqual(checkNames(r), BundleChecks) {
				t.Fatalf("checks %v", checkNames(r))
			}
			if !reflect.DeepEqual(r.Failing(), c.fail) || r.Valid != c.valid {
				t.Fatalf("failing %v, want %v: %+v", r.Failing(), c.fail, r.Checks)
			}
			for _, ch := range r.Checks {
				if !ch.OK && ch.Detail == "" {
					t.Fatalf("%s failed without a detail", ch.Name)
				}
			}
		})
	}
	if valid < 2 || len(covered) != len(BundleChecks) {
		t.Fatalf("the folder must hold two valid cases and a failing case per check: %d valid, %v", valid, covered)
	}
}

func validBundleCase(t *testing.T) bundleCase {
	for _, c := range loadBundleCases(t) {
		if c.file == "valid-delegated-purchase.json" {
			return c
		}
	}
	t.Fatal("valid-delegated-purchase.json not found")
	return bundleCase{}
}

// deepCopy gives a mutable copy of a generic JSON value.
func deepCopy(t *testing.T, v any) map[string]any {
	raw, err := Canonicalize(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ParseJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	return out.(map[string]any)
}

func TestBundleKeysComeOnlyFromTheCaller(t *testing.T) {
	c := validBundleCase(t)
	r := VerifyBundle(context.Background(), c.bundle, JWKS{}, VerifyBundleOptions{Origin: c.origin})
	for _, name := range []string{"bundle_signature", "decision_map_signature", "evidence_pack_signature",
		"delegation_chain_signatures", "checkpoint_signature"} {
		if !strings.Contains(strings.Join(r.Failing(), ","), name) {
			t.Fatalf("%s passed without a trusted key: %v", name, r.Checks)
		}
	}
}

func TestBundleFromAnotherLogFailsWhereTheLogIsJudged(t *testing.T) {
	c := validBundleCase(t)
	r := VerifyBundle(context.Background(), c.bundle, c.jwks, VerifyBundleOptions{Origin: "another-log.example/audit"})
	if !reflect.DeepEqual(r.Failing(), []string{"evidence_pack_signature", "checkpoint_signature"}) {
		t.Fatalf("%v", r.Failing())
	}
}

func TestBundlePartChangedAfterSigning(t *testing.T) {
	c := validBundleCase(t)
	b := deepCopy(t, c.bundle)
	b["purpose_manifest"].(map[string]any)["purpose"] = "something_else"
	r := VerifyBundle(context.Background(), b, c.jwks, VerifyBundleOptions{Origin: c.origin})
	if !reflect.DeepEqual(r.Failing(), []string{"bundle_signature", "references_digest"}) ||
		!strings.Contains(r.Checks[1].Detail, "purpose_manifest") {
		t.Fatalf("%+v", r.Checks)
	}
	b = deepCopy(t, c.bundle)
	delete(b, "replay_proof")
	r = VerifyBundle(context.Background(), b, c.jwks, VerifyBundleOptions{Origin: c.origin})
	if r.Checks[1].Detail != "part `replay_proof` is missing" || r.Checks[8].OK {
		t.Fatalf("%+v", r.Checks)
	}
}

func TestBundlePartDigest(t *testing.T) {
	b := obj(validBundleCase(t).bundle)
	for _, ref := range b["references"].([]any) {
		name := obj(ref)["name"].(string)
		got, err := BundlePartDigest(b[name])
		if err != nil || got != obj(ref)["sha256"] {
			t.Fatalf("%s: %s %v", name, got, err)
		}
	}
	if d, _ := BundlePartDigest(nil); d != "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b" {
		t.Fatal(d)
	}
}

func TestBundleAcceptsRawJSONAndHostileInput(t *testing.T) {
	c := validBundleCase(t)
	raw, _ := json.Marshal(c.bundle)
	if r := VerifyBundle(context.Background(), raw, c.jwks, VerifyBundleOptions{Origin: c.origin}); !r.Valid {
		t.Fatalf("raw bytes: %+v", r.Checks)
	}
	for _, hostile := range []any{nil, []any{}, "bundle", 42.0, map[string]any{}, []byte("{\"a\":1,\"a\":2}"),
		map[string]any{"schema_version": "ns.authority_proof_bundle.v1"},
		map[string]any{"evidence_pack": map[string]any{"now": "not a time", "snapshot": map[string]any{"grants": []any{1.0}}}},
		map[string]any{"evidence_pack": []any{}, "delegation_chain": map[string]any{"links": []any{nil, nil}}}} {
		r := VerifyBundle(context.Background(), hostile, c.jwks, VerifyBundleOptions{})
		if r.Valid || !reflect.DeepEqual(checkNames(r), BundleChecks) || r.Failing()[0] != "bundle_signature" {
			t.Fatalf("%v: %+v", hostile, r.Checks)
		}
	}
}

// applyBundleEdits applies the differential file's JSON Pointer edits (set `value`, or delete the member).
func applyBundleEdits(t *testing.T, bundle any, edits []any) any {
	out := any(deepCopy(t, bundle))
	for _, e := range edits {
		edit := obj(e)
		parts := strings.Split(edit["pointer"].(string), "/")[1:]
		for i, k := range parts {
			parts[i] = strings.ReplaceAll(strings.ReplaceAll(k, "~1", "/"), "~0", "~")
		}
		node := out
		for _, k := range parts[:len(parts)-1] {
			if list, ok := node.([]any); ok {
				node = list[atoi(t, k)]
			} else {
				node = obj(node)[k]
			}
		}
		last := parts[len(parts)-1]
		value, has := edit["value"]
		switch n := node.(type) {
		case []any:
			n[atoi(t, last)] = value
		case map[string]any:
			if has {
				n[last] = value
			} else {
				delete(n, last)
			}
		}
	}
	return out
}

func atoi(t *testing.T, s string) int {
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil {
		t.Fatalf("index %q: %v", s, err)
	}
	return n
}

// TestBundleAgreesWithCoreOnDamagedBundles walks vectors/sdk/bundle-differential.json: seeded damage to
// vectors/bundles with core's full answer; every check and every detail must be the same.
func TestBundleAgreesWithCoreOnDamagedBundles(t *testing.T) {
	sources := map[string]bundleCase{}
	for _, c := range loadBundleCases(t) {
		sources[c.file] = c
	}
	cases, _ := obj(readJSONFile(t, filepath.Join(repoRoot(t), "vectors", "sdk", "bundle-differential.json")))["cases"].([]any)
	if len(cases) < 100 {
		t.Fatalf("only %d differential cases", len(cases))
	}
	differ := 0
	for i, c := range cases {
		cs := obj(c)
		src := sources[cs["bundle"].(string)]
		edits, _ := cs["edits"].([]any)
		origin, _ := cs["origin"].(string)
		got := VerifyBundle(context.Background(), applyBundleEdits(t, src.bundle, edits), src.jwks, VerifyBundleOptions{Origin: origin})
		want := obj(cs["want"])
		wantChecks := want["checks"].([]any)
		same := got.Valid == (want["valid"] == true) && len(got.Checks) == len(wantChecks)
		for j := 0; same && j < len(wantChecks); j++ {
			w := obj(wantChecks[j])
			detail, _ := w["detail"].(string)
			same = got.Checks[j].Name == w["name"] && got.Checks[j].OK == (w["ok"] == true) && got.Checks[j].Detail == detail
		}
		if !same {
			differ++
			if differ <= 3 {
				t.Errorf("case %d (%s %v): got %+v, want %v", i, cs["bundle"], edits, got.Checks, wantChecks)
			}
		}
	}
	if differ > 0 {
		t.Fatalf("%d of %d cases differ from core", differ, len(cases))
	}
}
