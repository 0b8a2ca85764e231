package aar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func treeSizeOf(v any) (uint64, bool) {
	if !isNonNegativeSafeInteger(v) {
		return 0, false // 2^64 - 1 in the vectors is an unsafe number: refused, as core refuses it
	}
	return uint64(v.(float64)), true
}

func hashList(v any) ([][]byte, bool) {
	if v == nil {
		return nil, true
	}
	var out [][]byte
	for _, h := range v.([]any) {
		b, ok := decodeBase64Strict(h.(string))
		if !ok {
			return nil, false
		}
		out = append(out, b)
	}
	return out, true
}

func walkMerkle(t *testing.T, kind string, run func(c map[string]any) error) {
	root := sharedVectorPath(t, "merkle", kind)
	n := 0
	_ = filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		n++
		c := obj(readJSONFile(t, path))
		err = run(c)
		if wantErr := c["wantErr"] == true; wantErr != (err != nil) {
			t.Errorf("%s: wantErr %v, got %v", strings.TrimPrefix(path, root), wantErr, err)
		}
		return nil
	})
	if n < 20 {
		t.Fatalf("only %d %s vectors", n, kind)
	}
}

func TestInclusionProofVectors(t *testing.T) {
	walkMerkle(t, "inclusion", func(c map[string]any) error {
		idx, ok1 := treeSizeOf(c["leafIdx"])
		size, ok2 := treeSizeOf(c["treeSize"])
		proof, ok3 := hashList(c["proof"])
		leaf, ok4 := decodeBase64Strict(c["leafHash"].(string))
		root, ok5 := decodeBase64Strict(c["root"].(string))
		if !(ok1 && ok2 && ok3 && ok4 && ok5) {
			return ErrMalformedHash
		}
		return VerifyInclusion(idx, size, leaf, proof, root)
	})
}

func TestConsistencyProofVectors(t *testing.T) {
	walkMerkle(t, "consistency", func(c map[string]any) error {
		s1, ok1 := treeSizeOf(c["size1"])
		s2, ok2 := treeSizeOf(c["size2"])
		proof, ok3 := hashList(c["proof"])
		r1, ok4 := decodeBase64Strict(c["root1"].(string))
		r2, ok5 := decodeBase64Strict(c["root2"].(string))
		if !(ok1 && ok2 && ok3 && ok4 && ok5) {
			return ErrMalformedHash
		}
		return VerifyConsistency(s1, s2, proof, r1, r2)
	})
}
