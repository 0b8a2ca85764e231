/**
 * Signed checkpoints (CONTRACT sections 4 and 8): `{ origin, size, root_hash, timestamp }` signed by the service key,
 * stored write-once, one per size. A log must never sign two checkpoints that contradict each other, so a new one is
 * made only for a larger tree, and only after a consistency proof from the latest checkpoint to it, built from the
 * stored nodes, verifies against both roots.
 * Made inside a write-queue unit: the tip it signs is the batch's own (units before it included), appends cannot
 * interleave, and on PostgreSQL the tip row lock orders it with every other instance's batches.
 */
import {
  AarError,
  decodeBase64,
  encodeBase64,
  planConsistencyProof,
  resolveProofPlan,
  signDocument,
  verifyConsistency,
  type CheckpointJson,
  type DocumentSignature,
} from '@aar/core';
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../app-context.ts';
import type { Database } from '../store/index.ts';
import { auditOf } from '../store/write-queue.ts';
import { auditOrigin } from './audit-origin.ts';
import { readStoredNodes } from './stored-node-reader.ts';

export type SignedCheckpoint = CheckpointJson & { signature: DocumentSignature };

export async function latestCheckpoint(db: Kysely<Database>): Promise<SignedCheckpoint | undefined> {
  const row = await db
    .selectFrom('audit_checkpoints')
    .select('document')
    .orderBy('size', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? (JSON.parse(row.document) as SignedCheckpoint) : undefined;
}

/** A signed checkpoint of the log as it is now; the latest one when the log has not grown since it was signed. */
export async function signCheckpoint(ctx: AppContext): Promise<SignedCheckpoint> {
  // read before the unit: the origin is the store's, fixed at its first open (audit-origin.ts)
  const origin = await auditOrigin(ctx);
  return ctx.writer.run(async (trx) => (await signCheckpointIn(trx, ctx, origin)).checkpoint);
}

/**
 * The same inside the caller's write unit (the scheduled checkpoint appends its event in the same unit).
 * `signed` tells whether a new checkpoint was made, or the latest one answered.
 */
export async function signCheckpointIn(
  trx: Transaction<Database>,
  ctx: AppContext,
  origin: string,
): Promise<{ checkpoint: SignedCheckpoint; signed: boolean }> {
  const appender = auditOf(trx);
  // the size and root of the log as it is, this batch's earlier entries included: positions need a settled appender
  await appender.settle();
  const size = appender.size;
  if (size === 0) throw new AarError('conflict', 'the audit log is empty: there is no tree to sign');
  const latest = await latestCheckpoint(trx);
  if (latest && latest.size === size) return { checkpoint: latest, signed: false };
  const root = appender.root();
  if (latest) {
    if (latest.size > size) {
      throw new AarError('audit_unavailable', `the log (${size}) is smaller than its checkpoint (${latest.size})`);
    }
    const plan = planConsistencyProof(latest.size, size);
    const proof = resolveProofPlan(plan, await readStoredNodes(trx, plan.flat(), size));
    const consistent = verifyConsistency(latest.size, size, proof, decodeBase64(latest.root_hash), root);
    if (!consistent.valid) {
      throw new AarError(
        'audit_unavailable',
        `refusing to sign: the tree of size ${size} is not consistent with checkpoint ${latest.size} (${consistent.failure})`,
      );
    }
  }
  const unsigned: CheckpointJson = {
    origin,
    size,
    root_hash: encodeBase64(root),
    timestamp: ctx.clock.now().toISOString(),
  };
  const checkpoint = (await signDocument(unsigned, ctx.keys.current())) as SignedCheckpoint;
  await trx
    .insertInto('audit_checkpoints')
    .values({
      size,
      root_hash: checkpoint.root_hash,
      timestamp: checkpoint.timestamp,
      document: JSON.stringify(checkpoint),
    })
    .execute();
  return { checkpoint, signed: true };
}

/** The latest checkpoint if it covers leaf `index`, else a new one (which covers every leaf appended so far). */
export async function checkpointCovering(ctx: AppContext, index: number): Promise<SignedCheckpoint> {
  const latest = await latestCheckpoint(ctx.store.db);
  if (latest && latest.size > index) return latest;
  return signCheckpoint(ctx);
}
