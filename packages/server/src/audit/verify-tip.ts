/**
 * The check at start (CONTRACT section 8): the chain's tip must extend the latest signed checkpoint. The stored
 * tip (size, last leaf hash, frontier) and the stored nodes must give a root that is consistent with the checkpoint's
 * (RFC 9162 consistency proof from the stored nodes, or the same root at the same size), the checkpoint row must
 * restate its signed document, of this log's origin and signed by one of our keys, and the last leaf must be the
 * stored last entry. Cheap (a handful of SELECTs) whatever the log's size; `GET /verify` walks everything.
 * Attacker assumption: the database may have been edited while the service was down; a tip that no longer extends
 * what the service signed means the log was rewritten or rolled back, so the service refuses to append to it.
 */
import {
  CompactRange,
  decodeBase64,
  encodeBase64,
  planConsistencyProof,
  resolveProofPlan,
  verifyConsistency,
  verifyDocument,
} from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { auditOrigin } from './audit-origin.ts';
import { readStoredNodes } from './stored-node-reader.ts';

export type TipCheck = { ok: true; size: number; checkpoint_size: number | null } | { ok: false; reason: string };

export async function verifyTipAgainstCheckpoint(ctx: AppContext): Promise<TipCheck> {
  const db = ctx.store.db;
  const tip = await db.selectFrom('audit_state').selectAll().where('id', '=', 1).executeTakeFirst();
  if (!tip) return { ok: false, reason: 'the audit chain has no tip row' };
  const size = Number(tip.size);
  let frontier: CompactRange;
  try {
    frontier = CompactRange.fromJSON(JSON.parse(tip.frontier));
  } catch {
    return { ok: false, reason: 'the tip frontier does not parse' };
  }
  if (frontier.size !== size) return { ok: false, reason: `the tip frontier is of size ${frontier.size}, not ${size}` };
  if (size > 0) {
    const last = await db
      .selectFrom('audit_entries')
      .select('leaf_hash')
      .where('idx', '=', size - 1)
      .executeTakeFirst();
    if (last?.leaf_hash !== tip.last_leaf_hash)
      return { ok: false, reason: `entry ${size - 1} is not the tip's last leaf` };
  }
  const row = await db.selectFrom('audit_checkpoints').selectAll().orderBy('size', 'desc').limit(1).executeTakeFirst();
  if (!row) return { ok: true, size, checkpoint_size: null };
  const signedSize = Number(row.size);
  let doc: { origin?: unknown; size?: unknown; root_hash?: unknown };
  try {
    doc = JSON.parse(row.document) as typeof doc;
  } catch {
    return { ok: false, reason: `checkpoint ${signedSize} does not parse` };
  }
  if (doc.size !== signedSize || doc.root_hash !== row.root_hash) {
    return { ok: false, reason: `checkpoint ${signedSize}'s row differs from its signed document` };
  }
  if (doc.origin !== (await auditOrigin(ctx)))
    return { ok: false, reason: `checkpoint ${signedSize} is of another origin` };
  if (!(await verifyDocument(doc, await ctx.keys.jwks())).valid) {
    return { ok: false, reason: `checkpoint ${signedSize}'s signature does not verify` };
  }
  if (size < signedSize)
    return { ok: false, reason: `the log (${size}) is smaller than its checkpoint (${signedSize})` };
  const root = frontier.root();
  if (size === signedSize) {
    return encodeBase64(root) === row.root_hash
      ? { ok: true, size, checkpoint_size: signedSize }
      : { ok: false, reason: `the tip's root differs from checkpoint ${signedSize}'s` };
  }
  try {
    const plan = planConsistencyProof(signedSize, size);
    const proof = resolveProofPlan(plan, await readStoredNodes(db, plan.flat(), size));
    const consistent = verifyConsistency(signedSize, size, proof, decodeBase64(row.root_hash), root);
    if (!consistent.valid) {
      return {
        ok: false,
        reason: `the tip (${size}) is not consistent with checkpoint ${signedSize} (${consistent.failure})`,
      };
    }
  } catch (error) {
    return { ok: false, reason: `the stored tree cannot prove checkpoint ${signedSize}: ${(error as Error).message}` };
  }
  return { ok: true, size, checkpoint_size: signedSize };
}
