/**
 * Outcome of a Merkle proof check, with a stable failure code a caller can branch on and log.
 * Part of the hand-written RFC 9162 code of merkle/ (no well-kept JS library does RFC 9162 proofs with this API).
 */
export type MerkleFailure =
  | 'invalid_size' // a tree size is not a non-negative safe integer
  | 'index_out_of_range' // the leaf index is not an integer in [0, tree size): the empty tree proves no inclusion
  | 'size1_gt_size2' // a consistency proof cannot go back in time
  | 'size1_zero' // a consistency proof from the empty tree proves nothing (RFC 9162 requires 0 < size1)
  | 'invalid_leaf_hash' // the leaf hash is not 32 bytes
  | 'malformed_proof' // the proof is not a list of 32-byte hashes (or, on the wire, not a valid proof document)
  | 'malformed_root' // on the wire: a root hash is not a base64 32-byte hash
  | 'wrong_proof_size' // the proof has more or fewer hashes than its sizes and index imply
  | 'root_mismatch' // inclusion: the proof leads to another root
  | 'root1_mismatch' // consistency: the proof does not lead to the old root
  | 'root2_mismatch'; // consistency: the proof does not lead to the new root

export type MerkleVerifyResult = { valid: true } | { valid: false; failure: MerkleFailure };

/** A root computed from a proof, or why none could be. */
export type MerkleRootResult = { valid: true; root: Uint8Array } | { valid: false; failure: MerkleFailure };
