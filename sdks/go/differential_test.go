package aar

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDecideAgreesWithCoreOnDifferentialSnapshots walks vectors/sdk/differential.json: mutated snapshots with
// core's full result (decision, reason, obligations, stop conditions, reservation, effective scope, every check's
// diagnostic). The port must reproduce each result exactly, canonical JSON for canonical JSON.
func TestDecideAgreesWithCoreOnDifferentialSnapshots(t *testing.T) {
	path := filepath.Join(repoRoot(t), "vectors", "sdk", "differential.json")
	// AAR_DIFFERENTIAL names a larger generated file: node --import tsx vectors/sdk/generate-differential.ts 5000 F
	if p := os.Getenv("AAR_DIFFERENTIAL"); p != "" {
		path = p
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not present", path)
	}
	cases, _ := obj(readJSONFile(t, path))["cases"].([]any)
	if len(cases) == 0 {
		t.Fatal("differential file holds no cases")
	}
	mismatches := 0
	for i, c := range cases {
		in, want := obj(obj(c)["input"]), obj(c)["want"]
		now, _ := in["now"].(string)
		got := DecideJSON(in["request"], in["snapshot"], now)
		g, _ := Canonicalize(asJSON(t, got))
		w, _ := Canonicalize(want)
		if string(g) != string(w) {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("case %d:\n got  %s\n want %s", i, g, w)
			}
		}
	}
	if mismatches > 0 {
		t.Fatalf("%d of %d cases differ from core", mismatches, len(cases))
	}
	t.Logf("%d differential cases agree with core", len(cases))
}
