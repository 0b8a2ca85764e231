/**
 * RFC 9162 2.1.4.1 consistency proof generation, written by hand: no well-kept JS library does RFC 9162 proofs
 * with this API.
 */
import { fieldError } from '../errors/aar-error.ts';
import { toNodeHashReader, type NodeHashReader } from './node-hash-reader.ts';
import { planConsistencyProof, resolveProofPlan } from './proof-plan.ts';

/**
 * Proves that the tree of the first `size1` leaves of `source` is a prefix of the tree of the first `size2`.
 * Throws AarError `invalid_request` naming `/size1` or `/size2` unless 0 < size1 <= size2 <= source size.
 */
export function consistencyProof(
  source: NodeHashReader | readonly Uint8Array[],
  size1: number,
  size2: number,
): Uint8Array[] {
  const reader = toNodeHashReader(source);
  const plan = planConsistencyProof(size1, size2);
  if (size2 > reader.size) throw fieldError('invalid_request', '/size2', `exceeds the log size ${reader.size}`);
  return resolveProofPlan(plan, reader);
}
