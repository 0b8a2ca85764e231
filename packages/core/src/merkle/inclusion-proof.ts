/**
 * RFC 9162 2.1.3.1 inclusion proof generation, written by hand: no well-kept JS library does RFC 9162 proofs
 * with this API.
 */
import { fieldError } from '../errors/aar-error.ts';
import { toNodeHashReader, type NodeHashReader } from './node-hash-reader.ts';
import { planInclusionProof, resolveProofPlan } from './proof-plan.ts';

/**
 * The audit path of leaf `index` in the tree of the first `size` leaves of `source` (a reader, or all leaf hashes).
 * Throws AarError `invalid_request` naming `/leaf_index` or `/tree_size` unless 0 <= index < size <= source size.
 */
export function inclusionProof(
  source: NodeHashReader | readonly Uint8Array[],
  index: number,
  size: number,
): Uint8Array[] {
  const reader = toNodeHashReader(source);
  const plan = planInclusionProof(index, size);
  if (size > reader.size) throw fieldError('invalid_request', '/tree_size', `exceeds the log size ${reader.size}`);
  return resolveProofPlan(plan, reader);
}
