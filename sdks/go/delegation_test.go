package aar

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
)

func jwksOf(t testing.TB, v any) JWKS {
	raw, _ := Canonicalize(v)
	var set JWKS
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	return set
}

func TestDelegationChainVectors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(vectorPath(t, "delegation"), "*.json"))
	if len(files) < 30 {
		t.Fatalf("only %d delegation vectors", len(files))
	}
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := obj(readJSONFile(t, f))
			in, want := obj(c["input"]), obj(c["want"])
			got := VerifyDelegationChain(context.Background(), in["chain"], jwksOf(t, in["jwks"]), in["now"].(string))
			if got.Valid != (want["valid"] == true) {
				t.Fatalf("valid %v, want %v: %+v", got.Valid, want["valid"], got.Problems)
			}
			if got.Valid && len(got.Problems) > 0 {
				t.Fatalf("valid with problems %+v", got.Problems)
			}
			for _, w := range want["problems"].([]any) {
				wp := obj(w)
				found := false
				for _, p := range got.Problems {
					if p.Code != wp["code"] {
						continue
					}
					if wi, ok := wp["index"].(float64); ok {
						if p.Index == nil || float64(*p.Index) != wi {
							continue
						}
					} else if p.Index != nil {
						continue
					}
					if wf, ok := wp["field"].(string); ok && (p.Field == nil || *p.Field != wf) {
						continue
					}
					found = true
				}
				if !found {
					t.Errorf("missing problem %v; got %+v", wp, problemsText(got.Problems))
				}
			}
		})
	}
}

func problemsText(ps []ChainProblem) []string {
	var out []string
	for _, p := range ps {
		idx, field := "-", "-"
		if p.Index != nil {
			idx = esNumber(float64(*p.Index))
		}
		if p.Field != nil {
			field = *p.Field
		}
		out = append(out, p.Code+"@"+idx+field)
	}
	return out
}
