// RFC 9162 Merkle tree hashing and proof verification, written by hand: the Go standard library has none and this
// module takes no third-party code. Model: transparency-dev/merkle proof/verify.go, step by step as RFC 9162
// sections 2.1.3.2 and 2.1.4.2 write it. Attacker assumption: indices, sizes, hashes and proofs come from the
// network; nothing here panics, every refusal is an error naming why.

package aar

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"math/bits"
)

// Merkle verification failures.
var (
	ErrIndexOutOfRange = errors.New("index_out_of_range")
	ErrWrongProofSize  = errors.New("wrong_proof_size")
	ErrRootMismatch    = errors.New("root_mismatch")
	ErrInvalidSize     = errors.New("invalid_size")
	ErrSize1Zero       = errors.New("size1_zero")
	ErrSize1GtSize2    = errors.New("size1_gt_size2")
	ErrRoot1Mismatch   = errors.New("root1_mismatch")
	ErrMalformedHash   = errors.New("malformed_hash")
)

// EmptyRoot is MTH({}) = SHA-256("").
var EmptyRoot = sha256.Sum256(nil)

// LeafHash is SHA-256(0x00 ‖ entry).
func LeafHash(entry []byte) []byte {
	h := sha256.New()
	h.Write([]byte{0})
	h.Write(entry)
	return h.Sum(nil)
}

// NodeHash is SHA-256(0x01 ‖ left ‖ right).
func NodeHash(left, right []byte) []byte {
	h := sha256.New()
	h.Write([]byte{1})
	h.Write(left)
	h.Write(right)
	return h.Sum(nil)
}

func checkHashes(hs ...[]byte) error {
	for _, h := range hs {
		if len(h) != sha256.Size {
			return ErrMalformedHash
		}
	}
	return nil
}

// RootFromInclusionProof is the root an inclusion proof of leafHash at index leads to in a tree of size leaves.
func RootFromInclusionProof(index, size uint64, leafHash []byte, proof [][]byte) ([]byte, error) {
	if index >= size {
		return nil, ErrIndexOutOfRange
	}
	if err := checkHashes(append([][]byte{leafHash}, proof...)...); err != nil {
		return nil, err
	}
	fn, sn := index, size-1
	r := leafHash
	for _, p := range proof {
		if sn == 0 {
			return nil, ErrWrongProofSize
		}
		if fn&1 == 1 || fn == sn {
			r = NodeHash(p, r)
			if fn&1 == 0 {
				for fn&1 == 0 && fn != 0 {
					fn >>= 1
					sn >>= 1
				}
			}
		} else {
			r = NodeHash(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 {
		return nil, ErrWrongProofSize
	}
	return r, nil
}

// VerifyInclusion checks that proof proves leafHash is leaf index of the tree of size leaves whose root is root.
func VerifyInclusion(index, size uint64, leafHash []byte, proof [][]byte, root []byte) error {
	got, err := RootFromInclusionProof(index, size, leafHash, proof)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare(got, root) != 1 {
		return ErrRootMismatch
	}
	return nil
}

// VerifyConsistency checks that the tree (size1, root1) is a prefix of (size2, root2). size1 = 0 is always
// refused; equal sizes need an empty proof and equal roots.
func VerifyConsistency(size1, size2 uint64, proof [][]byte, root1, root2 []byte) error {
	if size1 > size2 {
		return ErrSize1GtSize2
	}
	if size1 == 0 {
		return ErrSize1Zero
	}
	if size1 == size2 {
		// Same tree: nothing to prove; the roots are compared byte for byte, whatever they are.
		if len(proof) != 0 {
			return ErrWrongProofSize
		}
		if subtle.ConstantTimeCompare(root1, root2) != 1 {
			return ErrRootMismatch
		}
		return nil
	}
	if len(proof) == 0 {
		return ErrWrongProofSize
	}
	if err := checkHashes(append([][]byte{root1, root2}, proof...)...); err != nil {
		return err
	}
	path := proof
	if bits.OnesCount64(size1) == 1 {
		path = append([][]byte{root1}, proof...)
	}
	fn, sn := size1-1, size2-1
	for fn&1 == 1 {
		fn >>= 1
		sn >>= 1
	}
	fr, sr := path[0], path[0]
	for _, c := range path[1:] {
		if sn == 0 {
			return ErrWrongProofSize
		}
		if fn&1 == 1 || fn == sn {
			fr = NodeHash(c, fr)
			sr = NodeHash(c, sr)
			if fn&1 == 0 {
				for fn&1 == 0 && fn != 0 {
					fn >>= 1
					sn >>= 1
				}
			}
		} else {
			sr = NodeHash(sr, c)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 {
		return ErrWrongProofSize
	}
	if subtle.ConstantTimeCompare(fr, root1) != 1 {
		return ErrRoot1Mismatch
	}
	if subtle.ConstantTimeCompare(sr, root2) != 1 {
		return ErrRootMismatch
	}
	return nil
}
