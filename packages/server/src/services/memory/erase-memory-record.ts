/**
 * `DELETE /v1/memory/records/{id}` (CONTRACT section 22): the principal erases a record. In one write-queue unit:
 * the content row is deleted, a signed tombstone is appended to the principal's chain (tombstone-chain.ts), the record
 * moves to `erased`, and `ns.memory.erased` with its audit entry (its envelope names the tombstone's digest) is written.
 * Who: the principal the record belongs to (another principal's record is 404, as a missing one), or an admin.
 * Erasing an ended record answers it as it is (idempotent): its tombstone stays the only one.
 */
import { AarError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { parseMemoryId } from './memory-ids.ts';
import { memoryRecordView, type MemoryRecordView } from './memory-view.ts';
import { tombstoneEventData } from './tombstone-event.ts';
import { appendTombstone } from './tombstone-chain.ts';

export async function eraseMemoryRecord(
  ctx: AppContext,
  credential: Credential,
  rawId: string,
): Promise<MemoryRecordView> {
  const id = parseMemoryId('memory_record', rawId, '/params/id');
  return ctx.writer.run(async (trx) => {
    const row = await trx
      .selectFrom('memory_records')
      .selectAll()
      .where('memory_record_id', '=', id)
      .executeTakeFirst();
    const mayAct =
      row !== undefined &&
      (credential.role === 'admin' ||
        (credential.role === 'principal' && credential.principal_entity_id === row.principal_entity_id));
    if (!row || !mayAct) throw new AarError('not_found', `memory record \`${id}\` does not exist`);
    if (row.state !== 'active') {
      const t = await trx
        .selectFrom('memory_tombstones')
        .select('tombstone')
        .where('memory_record_id', '=', id)
        .executeTakeFirstOrThrow();
      return memoryRecordView(row, null, t.tombstone);
    }
    const tombstone = await appendTombstone(trx, ctx, row, 'erased');
    await appendEvent(trx, ctx, {
      event_type: 'ns.memory.erased',
      actor_entity_id: actorOf(credential),
      principal_entity_id: row.principal_entity_id,
      subject_ref: id,
      reason_code: 'memory_erased',
      data: tombstoneEventData(row, tombstone),
    });
    const ended = await trx
      .selectFrom('memory_records')
      .selectAll()
      .where('memory_record_id', '=', id)
      .executeTakeFirstOrThrow();
    return memoryRecordView(ended, null, tombstone.text);
  });
}
