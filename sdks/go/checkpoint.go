package aar

import (
	"context"
	"errors"
	"fmt"
	"regexp"
)

// Checkpoint is a signed tree head (CONTRACT section 8): `{ origin, size, root_hash, timestamp, signature }`.
type Checkpoint struct {
	Origin    string `json:"origin"`
	Size      uint64 `json:"size"`
	RootHash  string `json:"root_hash"`
	Timestamp string `json:"timestamp"`
}

// InclusionProof is `{ leaf_index, tree_size, leaf_hash, hashes }`, hashes in standard base64.
type InclusionProof struct {
	LeafIndex uint64   `json:"leaf_index"`
	TreeSize  uint64   `json:"tree_size"`
	LeafHash  string   `json:"leaf_hash"`
	Hashes    []string `json:"hashes"`
}

// MaxProofHashes: no proof of a tree below 2^53 leaves is longer.
const MaxProofHashes = 64

var (
	originPattern             = regexp.MustCompile(`^[\x21-\x7e]{1,255}$`)
	checkpointTimestampFormat = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$`)
)

func onlyMembers(m map[string]any, allowed ...string) error {
	for k := range m {
		if !includesString(allowed, k) {
			return fmt.Errorf("/%s is not allowed", k)
		}
	}
	return nil
}

func isBase64Hash(v any) bool {
	s, ok := v.(string)
	if !ok || len(s) > 64 {
		return false
	}
	b, ok := decodeBase64Strict(s)
	return ok && len(b) == 32
}

// ParseCheckpoint checks a checkpoint's shape strictly (its signature is VerifyDocument's job).
func ParseCheckpoint(v any) (Checkpoint, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Checkpoint{}, fmt.Errorf("checkpoint must be an object")
	}
	if err := onlyMembers(m, "origin", "size", "root_hash", "timestamp", "signature"); err != nil {
		return Checkpoint{}, err
	}
	origin, ok := m["origin"].(string)
	if !ok || !originPattern.MatchString(origin) {
		return Checkpoint{}, fmt.Errorf("/origin must be 1-255 printable ASCII characters without spaces")
	}
	if !isNonNegativeSafeInteger(get(m, "size")) {
		return Checkpoint{}, fmt.Errorf("/size must be a non-negative safe integer")
	}
	if !isBase64Hash(m["root_hash"]) {
		return Checkpoint{}, fmt.Errorf("/root_hash must be a base64 32-byte hash")
	}
	ts, ok := m["timestamp"].(string)
	if _, valid := parseInstant(ts); !ok || !checkpointTimestampFormat.MatchString(ts) || !valid {
		return Checkpoint{}, fmt.Errorf("/timestamp must be an RFC 3339 UTC timestamp")
	}
	return Checkpoint{Origin: origin, Size: uint64(m["size"].(float64)), RootHash: m["root_hash"].(string), Timestamp: ts}, nil
}

// ParseInclusionProof checks an inclusion proof's shape strictly: exactly the four members.
func ParseInclusionProof(v any) (InclusionProof, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return InclusionProof{}, fmt.Errorf("inclusion proof must be an object")
	}
	if err := onlyMembers(m, "leaf_index", "tree_size", "leaf_hash", "hashes"); err != nil {
		return InclusionProof{}, err
	}
	for _, k := range []string{"leaf_index", "tree_size"} {
		if !isNonNegativeSafeInteger(get(m, k)) {
			return InclusionProof{}, fmt.Errorf("/%s must be a non-negative safe integer", k)
		}
	}
	if !isBase64Hash(m["leaf_hash"]) {
		return InclusionProof{}, fmt.Errorf("/leaf_hash must be a base64 32-byte hash")
	}
	list, ok := m["hashes"].([]any)
	if !ok || len(list) > MaxProofHashes {
		return InclusionProof{}, fmt.Errorf("/hashes must be an array of at most %d hashes", MaxProofHashes)
	}
	hashes := make([]string, len(list))
	for i, h := range list {
		if !isBase64Hash(h) {
			return InclusionProof{}, fmt.Errorf("/hashes/%d must be a base64 32-byte hash", i)
		}
		hashes[i] = h.(string)
	}
	return InclusionProof{
		LeafIndex: uint64(m["leaf_index"].(float64)), TreeSize: uint64(m["tree_size"].(float64)),
		LeafHash: m["leaf_hash"].(string), Hashes: hashes,
	}, nil
}

// Verify checks the proof against a base64 root (a checkpoint's root_hash).
func (p InclusionProof) Verify(rootBase64 string) error {
	root, ok := decodeBase64Strict(rootBase64)
	if !ok || len(root) != 32 {
		return errors.New("malformed_root")
	}
	leaf, _ := decodeBase64Strict(p.LeafHash)
	proof := make([][]byte, len(p.Hashes))
	for i, h := range p.Hashes {
		proof[i], _ = decodeBase64Strict(h)
	}
	return VerifyInclusion(p.LeafIndex, p.TreeSize, leaf, proof, root)
}

// CheckpointVerification is the result of VerifyCheckpoint.
type CheckpointVerification struct {
	Valid      bool       `json:"valid"`
	Checkpoint Checkpoint `json:"checkpoint"`
	KeyID      string     `json:"key_id,omitempty"`
	// Failure: malformed_checkpoint, origin_mismatch, or a signed-document failure.
	Failure string `json:"failure,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// VerifyCheckpoint checks shape, origin (when origin is not empty: a checkpoint of another log proves nothing about
// this one, even signed by the same key) and the signature against the trusted keys.
func VerifyCheckpoint(ctx context.Context, checkpoint any, keys KeySource, origin string) CheckpointVerification {
	value, err := documentValue(checkpoint)
	if err != nil {
		return CheckpointVerification{Failure: "malformed_checkpoint", Detail: err.Error()}
	}
	cp, err := ParseCheckpoint(value)
	if err != nil {
		return CheckpointVerification{Failure: "malformed_checkpoint", Detail: err.Error()}
	}
	if origin != "" && cp.Origin != origin {
		return CheckpointVerification{Checkpoint: cp, Failure: "origin_mismatch"}
	}
	sig := VerifyDocument(ctx, value, keys)
	if !sig.Valid {
		return CheckpointVerification{Checkpoint: cp, KeyID: sig.KeyID, Failure: sig.Failure}
	}
	return CheckpointVerification{Valid: true, Checkpoint: cp, KeyID: sig.KeyID}
}

// VerifyInclusionInCheckpoint returns nil or an error whose text is the failure code. It verifies a signed checkpoint and that proof leads from entry (the audit entry's exact
// bytes) to its root.
func VerifyInclusionInCheckpoint(ctx context.Context, entry []byte, proof, checkpoint any, keys KeySource, origin string) error {
	cv := VerifyCheckpoint(ctx, checkpoint, keys, origin)
	if !cv.Valid {
		return errors.New(cv.Failure)
	}
	pv, err := documentValue(proof)
	if err != nil {
		return err
	}
	p, err := ParseInclusionProof(pv)
	if err != nil {
		return errors.New("malformed_proof")
	}
	if p.TreeSize != cv.Checkpoint.Size {
		return errors.New("tree_size_mismatch")
	}
	if encodeBase64(LeafHash(entry)) != p.LeafHash {
		return errors.New("leaf_hash_mismatch")
	}
	return p.Verify(cv.Checkpoint.RootHash)
}
