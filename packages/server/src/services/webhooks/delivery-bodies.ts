import type { AppContext } from '../../app-context.ts';
import type { UnsignedEventEnvelope } from '../events/append-event.ts';
import { envelopesOf } from '../events/derived-envelope.ts';

/** The stored (unsigned) envelopes of these events, rebuilt as every reader sees them (derived-envelope.ts). */
export async function loadEnvelopes(
  ctx: AppContext,
  eventIds: readonly string[],
): Promise<Map<string, UnsignedEventEnvelope>> {
  const out = new Map<string, UnsignedEventEnvelope>();
  for (let i = 0; i < eventIds.length; i += 500) {
    const rows = await ctx.store.db
      .selectFrom('events')
      .select(['event_id', 'subject_ref', 'envelope', 'operation_ref'])
      .where('event_id', 'in', eventIds.slice(i, i + 500))
      .execute();
    for (const envelope of await envelopesOf(ctx.store.db, rows)) out.set(envelope.event_id, envelope);
  }
  return out;
}
