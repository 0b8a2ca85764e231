package aar

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The preview documents' verifiers (issue 30) over vectors/preview, the documents the service made: valid ones
// verify, every tampered variant fails with the check and code its vector names (as in the TypeScript and Python
// SDKs), and every one-byte change of a signed document that still parses fails without a panic.

// previewKinds are the kinds the Go SDK verifies (the graph, search and data-flow documents are the TypeScript SDK's).
var previewKinds = map[string]bool{"payload_artefact": true, "memory_record": true, "memory_chain": true, "compliance_report": true}

func previewJWKS(t *testing.T) JWKS {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectorPath(t, "preview"), "jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var keys JWKS
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	return keys
}

type previewVector struct {
	name  string
	kind  string
	input map[string]any
	want  map[string]any
}

func previewVectors(t *testing.T) []previewVector {
	t.Helper()
	dir := vectorPath(t, "preview")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []previewVector
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || e.Name() == "jwks.json" {
			continue
		}
		v := readJSONFile(t, filepath.Join(dir, e.Name()))
		kind, _ := get(v, "kind").(string)
		if !previewKinds[kind] {
			continue
		}
		out = append(out, previewVector{e.Name(), kind, obj(get(v, "input")), obj(get(v, "want"))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// judgePreview verifies one vector input; checks is a common view of the result's checks.
func judgePreview(kind string, input map[string]any, keys KeySource) (bool, []PreviewCheck) {
	ctx := context.Background()
	switch kind {
	case "payload_artefact":
		var o PayloadArtefactOptions
		if p, ok := input["payload"].(string); ok {
			o.Payload = []byte(p)
		}
		if k, ok := input["agent_key"].(map[string]any); ok {
			raw, _ := json.Marshal(k)
			o.AgentKey = &JWK{}
			if err := json.Unmarshal(raw, o.AgentKey); err != nil {
				panic(err)
			}
		}
		r := VerifyPayloadArtefact(ctx, input["document"], keys, o)
		return r.Valid, r.Checks
	case "memory_record":
		var o MemoryRecordOptions
		if c, ok := input["content"]; ok {
			o.Content = c
			o.ContentSalt, _ = input["content_salt"].(string)
		}
		if r, ok := input["record"]; ok {
			o.Record = r
		}
		r := VerifyMemoryRecord(ctx, input["document"], keys, o)
		return r.Valid, r.Checks
	case "memory_chain":
		r := VerifyMemoryChain(ctx, input["records"], keys)
		return r.Valid, r.Checks
	case "compliance_report":
		r := VerifyComplianceReport(ctx, input["document"], keys)
		return r.Valid, r.Checks
	}
	panic("unknown kind " + kind)
}

func TestPreviewVectors(t *testing.T) {
	keys := previewJWKS(t)
	vectors := previewVectors(t)
	seen := map[string]bool{}
	for _, v := range vectors {
		seen[v.kind] = true
		t.Run(v.name, func(t *testing.T) {
			valid, checks := judgePreview(v.kind, v.input, keys)
			var failed []string
			for _, c := range checks {
				if !c.Valid {
					failed = append(failed, c.Check+"/"+c.Failure)
				}
			}
			if v.want["valid"] == true {
				if !valid || len(failed) > 0 {
					t.Fatalf("want valid, failed %v", failed)
				}
				return
			}
			want := v.want["check"].(string) + "/" + v.want["failure"].(string)
			if valid || !contains(failed, want) {
				t.Fatalf("want %s to fail, failed %v", want, failed)
			}
		})
	}
	for kind := range previewKinds {
		if !seen[kind] {
			t.Errorf("no vector of kind %s", kind)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestPreviewKeysComeOnlyFromTheCaller(t *testing.T) {
	v := readJSONFile(t, filepath.Join(vectorPath(t, "preview"), "memory-record.json"))
	_, checks := judgePreview("memory_record", obj(get(v, "input")), JWKS{})
	if checks[0].Check != "signature" || checks[0].Failure != "unknown_key" {
		t.Fatalf("got %+v", checks[0])
	}
}

func TestPreviewHostileInput(t *testing.T) {
	ctx := context.Background()
	keys := previewJWKS(t)
	for _, input := range []any{nil, 1.0, "x", []any{}, map[string]any{}, map[string]any{"signature": 7.0}, []byte("{"), []byte("[1,")} {
		if VerifyPayloadArtefact(ctx, input, keys).Valid || VerifyMemoryRecord(ctx, input, keys).Valid ||
			VerifyComplianceReport(ctx, input, keys).Valid {
			t.Fatalf("%v verified", input)
		}
		if VerifyMemoryChain(ctx, []any{input}, keys).Valid {
			t.Fatalf("chain of %v verified", input)
		}
	}
}

func TestPreviewEveryOneByteChangeFails(t *testing.T) {
	keys := previewJWKS(t)
	for _, v := range previewVectors(t) {
		doc, ok := v.input["document"]
		if v.want["valid"] != true || !ok {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			text, err := Canonicalize(doc)
			if err != nil {
				t.Fatal(err)
			}
			parsed := 0
			for i := range text {
				changed := append([]byte(nil), text...)
				changed[i] ^= 0x01
				value, err := ParseJSON(changed)
				if err != nil {
					continue // not JSON any more: nothing a verifier is ever handed as a document
				}
				if again, err := Canonicalize(value); err == nil && bytes.Equal(again, text) {
					continue
				}
				parsed++
				input := map[string]any{}
				for k, x := range v.input {
					input[k] = x
				}
				input["document"] = value
				if valid, _ := judgePreview(v.kind, input, keys); valid {
					t.Fatalf("byte %d changed still verifies", i)
				}
			}
			if parsed <= len(text)/2 {
				t.Fatalf("only %d of %d changes parsed", parsed, len(text))
			}
		})
	}
}
