/**
 * A principal's chain of memory tombstones (docs/memory.md "Verifying the tombstone chain"), offline, given in
 * sequence order from the first: every tombstone verifies on its own (verifyMemoryRecord: signature by a key of the
 * caller's JWKS, shape), they are one principal's, numbered 1..n without a gap, and each names the digest of the one
 * before (base64url SHA-256 of its RFC 8785 text, signature included; null for the first). Removing, reordering,
 * replacing or inserting a tombstone breaks a link. `tip_digest` is the last one's digest: pin it, and a later
 * chain that does not pass through it was rewritten.
 * Attacker assumption: the list is any JSON value; every failure is a named check, nothing throws.
 */
import type { TrustedKeySource } from '../trusted-key-source.ts';
import { memoryDocumentDigest, verifyMemoryRecord } from './verify-memory-record.ts';
import { isRecord, type PreviewCheck, type PreviewVerificationResult } from './preview-verification.ts';

/** A bound on the work one call does: longer chains are verified in segments with `after`. */
export const MAX_MEMORY_CHAIN = 100_000;

export interface VerifyMemoryChainOptions {
  /** the principal the chain must belong to; default: the first tombstone's */
  principalEntityId?: string;
  /** verify a segment: the tombstone before the first one given (its `sequence` and digest), e.g. a pinned tip */
  after?: { sequence: number; digest: string };
}

export interface MemoryChainVerificationResult {
  valid: boolean;
  length: number;
  /** the last tombstone's digest; null for an empty chain (a principal nothing was erased or purged for) */
  tip_digest: string | null;
  /** `tombstones`, `principal`, `sequence`, `links`, in that order */
  checks: PreviewCheck[];
  /** each tombstone's own verification, in the order given */
  tombstones: PreviewVerificationResult[];
}

function failed(check: string, failure: string, detail?: string): PreviewCheck {
  return detail === undefined ? { check, valid: false, failure } : { check, valid: false, failure, detail };
}

export async function verifyMemoryChain(
  tombstones: unknown,
  trusted: TrustedKeySource,
  options: VerifyMemoryChainOptions = {},
): Promise<MemoryChainVerificationResult> {
  let list: unknown[];
  try {
    if (!Array.isArray(tombstones) || tombstones.length > MAX_MEMORY_CHAIN) throw new Error('not a chain');
    list = [...(tombstones as unknown[])];
  } catch {
    const checks = ['tombstones', 'principal', 'sequence', 'links'].map((c) => failed(c, 'malformed_chain'));
    return { valid: false, length: 0, tip_digest: null, checks, tombstones: [] };
  }

  const results: PreviewVerificationResult[] = [];
  for (const t of list) results.push(await verifyMemoryRecord(t, trusted));
  const firstBad = results.findIndex((r, i) => !r.valid || !isTombstoneAt(list, i));
  const tombstoneCheck: PreviewCheck =
    firstBad === -1
      ? { check: 'tombstones', valid: true }
      : failed(
          'tombstones',
          results[firstBad]?.checks.find((c) => !c.valid)?.failure ?? 'not_a_tombstone',
          `/${firstBad}`,
        );

  let principalCheck: PreviewCheck = { check: 'principal', valid: true };
  let sequenceCheck: PreviewCheck = { check: 'sequence', valid: true };
  let linkCheck: PreviewCheck = { check: 'links', valid: true };
  let previousDigest: string | null = options.after?.digest ?? null;
  let expectedSequence = (options.after?.sequence ?? 0) + 1;
  let principal = options.principalEntityId;
  let tip: string | null = null;
  for (const [i, t] of list.entries()) {
    try {
      if (!isRecord(t)) throw new Error('not an object');
      principal ??= typeof t.principal_entity_id === 'string' ? t.principal_entity_id : undefined;
      if (principalCheck.valid && t.principal_entity_id !== principal) {
        principalCheck = failed('principal', 'other_principal', `/${i}/principal_entity_id`);
      }
      if (sequenceCheck.valid && t.sequence !== expectedSequence) {
        sequenceCheck = failed('sequence', 'sequence_gap', `/${i}/sequence`);
      }
      if (linkCheck.valid && (t.previous_tombstone_digest ?? null) !== previousDigest) {
        linkCheck = failed('links', 'chain_broken', `/${i}/previous_tombstone_digest`);
      }
      previousDigest = memoryDocumentDigest(t);
      tip = previousDigest;
    } catch {
      if (linkCheck.valid) linkCheck = failed('links', 'malformed_chain', `/${i}`);
      previousDigest = null;
      tip = null;
    }
    expectedSequence += 1;
  }
  const checks = [tombstoneCheck, principalCheck, sequenceCheck, linkCheck];
  return {
    valid: checks.every((c) => c.valid),
    length: list.length,
    tip_digest: tip,
    checks,
    tombstones: results,
  };
}

function isTombstoneAt(list: unknown[], i: number): boolean {
  try {
    const t = list[i];
    return isRecord(t) && t.form === 'tombstone';
  } catch {
    return false;
  }
}
