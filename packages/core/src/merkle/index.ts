// RFC 9162 Merkle tree: hashing, roots, proofs, verification, compact frontier and wire shapes.
// Written by hand: no well-kept JS library does RFC 9162 proofs with this API. base64, byte and integer helpers stay
// private to this folder.
export { EMPTY_ROOT, HASH_SIZE, leafHash, nodeHash } from './hashing.ts';
export { rootFromLeafHashes } from './root-from-leaf-hashes.ts';
export { CompactRange, type CompactRangeJson, type VisitNodeFn } from './compact-range.ts';
export { isPerfectRange, type PerfectRange } from './perfect-range.ts';
export { InMemoryNodeHashReader, type NodeHashReader } from './node-hash-reader.ts';
export { planConsistencyProof, planInclusionProof, resolveProofPlan, type ProofPlan } from './proof-plan.ts';
export { inclusionProof } from './inclusion-proof.ts';
export { consistencyProof } from './consistency-proof.ts';
export type { MerkleFailure, MerkleRootResult, MerkleVerifyResult } from './verify-result.ts';
export { rootFromInclusionProof, verifyInclusion } from './verify-inclusion.ts';
export { rootFromConsistencyProof, verifyConsistency } from './verify-consistency.ts';
export {
  inclusionProofToJson,
  parseInclusionProofJson,
  verifyInclusionProofJson,
  type InclusionProofJson,
} from './inclusion-proof-json.ts';
export {
  consistencyProofToJson,
  parseConsistencyProofJson,
  verifyConsistencyProofJson,
  type ConsistencyProofJson,
} from './consistency-proof-json.ts';
export { parseCheckpointJson, type CheckpointJson } from './checkpoint-json.ts';
