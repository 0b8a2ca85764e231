/**
 * Fills the audit log fast for the verify benchmark: entries, leaf hashes and Merkle nodes computed here with native
 * SHA-256 and written with multi-row INSERTs (test/support/insert-rows-bulk.ts) in large transactions, then the tip
 * and a signed checkpoint. The rows are exactly what the appender writes (same entry bytes, same nodes), only
 * without its per-batch bookkeeping: the verifier cannot tell them apart, and checks every one.
 */
import { randomUUID } from 'node:crypto';
import { canonicalJson, mintedId, type AuditEntryJson } from '@aar/core';
import type { AppContext } from '../../packages/server/src/app-context.ts';
import { AUDIT_ENTRY_SCHEMA, digestOfCanonical } from '../../packages/server/src/audit/audit-entry.ts';
import { signCheckpoint } from '../../packages/server/src/audit/checkpoints.ts';
import { leafHashOf, NodeRange } from '../../packages/server/src/audit/verify/node-range.ts';
import { insertRowsBulk } from '../../packages/server/test/support/insert-rows-bulk.ts';

const ENTRY_COLUMNS = ['idx', 'audit_id', 'kind', 'subject_ref', 'occurred_at', 'entry', 'leaf_hash'] as const;
const NODE_COLUMNS = ['level', 'idx', 'hash'] as const;

export interface SeedRun {
  entries: number;
  ms: number;
}

/** Appends `count` external entries (`bench.fill`, a small record each) after the current tip. */
export async function seedLog(ctx: AppContext, count: number, perTransaction = 50_000): Promise<SeedRun> {
  const started = performance.now();
  const db = ctx.store.db;
  const tip = await db.selectFrom('audit_state').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  const range = NodeRange.fromJSON(JSON.parse(tip.frontier));
  let last = tip.last_leaf_hash;
  const occurredAt = new Date().toISOString();
  for (let done = 0; done < count; done += perTransaction) {
    const n = Math.min(perTransaction, count - done);
    const entries: unknown[][] = [];
    const nodes: unknown[][] = [];
    for (let j = 0; j < n; j++) {
      const entry: AuditEntryJson = {
        schema_version: AUDIT_ENTRY_SCHEMA,
        audit_id: mintedId('audit', randomUUID()),
        index: range.size,
        occurred_at: occurredAt,
        kind: 'bench.fill',
        subject_ref: `bench:${done + j}`,
        record_digest: digestOfCanonical(`{"i":${done + j}}`),
        prev_leaf_hash: last,
      };
      const text = canonicalJson(entry);
      const leaf = leafHashOf(text);
      range.append(leaf, (level, idx, hash) => nodes.push([level, idx, hash.toString('base64')]));
      last = leaf.toString('base64');
      entries.push([entry.index, entry.audit_id, entry.kind, entry.subject_ref, occurredAt, text, last]);
    }
    await db.transaction().execute(async (trx) => {
      await insertRowsBulk(trx, ctx.store.dialect, 'audit_entries', ENTRY_COLUMNS, entries);
      await insertRowsBulk(trx, ctx.store.dialect, 'audit_nodes', NODE_COLUMNS, nodes);
      await trx
        .updateTable('audit_state')
        .set({
          size: range.size,
          last_leaf_hash: last,
          frontier: JSON.stringify(range.toJSON()),
          updated_at: occurredAt,
        })
        .where('id', '=', 1)
        .execute();
    });
  }
  await signCheckpoint(ctx);
  return { entries: count, ms: performance.now() - started };
}
