/**
 * Inclusion and consistency proofs (RFC 9162 2.1.3 and 2.1.4) served from the stored nodes: one SELECT per proof,
 * the leaf hash included. Attacker assumption: index and sizes come from a query string; each is checked against
 * the committed tree before a plan is made, and refused (400) naming the parameter.
 */
import {
  consistencyProofToJson,
  fieldError,
  inclusionProofToJson,
  planConsistencyProof,
  planInclusionProof,
  resolveProofPlan,
  type ConsistencyProofJson,
  type InclusionProofJson,
} from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../store/index.ts';
import { readStoredNodes } from './stored-node-reader.ts';

/** The size of the committed tree (the tip row is written in the same transaction as the entries). */
export async function committedTreeSize(db: Kysely<Database>): Promise<number> {
  const tip = await db.selectFrom('audit_state').select('size').where('id', '=', 1).executeTakeFirstOrThrow();
  return Number(tip.size);
}

function treeSizeParam(size: number | undefined, committed: number, path: string): number {
  const chosen = size ?? committed;
  if (chosen === 0) throw fieldError('invalid_request', path, 'the empty tree has no proofs');
  if (chosen > committed) throw fieldError('invalid_request', path, `is beyond the tree size ${committed}`);
  return chosen;
}

/** PATH(index, D[0:size]); `size` defaults to the committed tree size. */
export async function proveInclusion(
  db: Kysely<Database>,
  index: number,
  size?: number,
  committed?: number,
): Promise<InclusionProofJson> {
  const treeSize = treeSizeParam(size, committed ?? (await committedTreeSize(db)), '/query/size');
  if (index >= treeSize) throw fieldError('invalid_request', '/query/index', `must be below the tree size ${treeSize}`);
  const plan = planInclusionProof(index, treeSize);
  const leaf = { begin: index, end: index + 1 };
  const reader = await readStoredNodes(db, [leaf, ...plan.flat()], treeSize);
  return inclusionProofToJson(
    index,
    treeSize,
    reader.perfectSubtreeHash(leaf.begin, leaf.end),
    resolveProofPlan(plan, reader),
  );
}

/** PROOF(from, D[0:to]); `to` defaults to the committed tree size. RFC 9162 defines none from the empty tree. */
export async function proveConsistency(db: Kysely<Database>, from: number, to?: number): Promise<ConsistencyProofJson> {
  const size2 = treeSizeParam(to, await committedTreeSize(db), '/query/to');
  if (from === 0) throw fieldError('invalid_request', '/query/from', 'the empty tree has no consistency proof');
  if (from > size2) throw fieldError('invalid_request', '/query/from', `must not exceed \`to\` (${size2})`);
  const plan = planConsistencyProof(from, size2);
  return consistencyProofToJson(from, size2, resolveProofPlan(plan, await readStoredNodes(db, plan.flat(), size2)));
}
