import { AarError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { requirePrincipalAccess } from '../../http/authenticate.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { cardTokenView, type CardTokenView } from './card-token-view.ts';
import { findCardToken } from './find-card-token.ts';

/** Suspending a card token stops every grant bound to it (authorize checks the instrument) without rewriting them. */
export async function setCardTokenState(
  ctx: AppContext,
  credential: Credential | null,
  ref: string,
  target: 'active' | 'suspended',
): Promise<CardTokenView> {
  return ctx.writer.run(async (trx) => {
    const row = await findCardToken(trx, ref, '/params/id');
    if (credential?.role === 'principal') requirePrincipalAccess(credential, row.principal_entity_id);
    if (row.state === target) return cardTokenView(row);
    const updated = await trx
      .updateTable('card_tokens')
      .set({ state: target, updated_at: ctx.clock.now().toISOString() })
      .where('card_token_id', '=', row.card_token_id)
      .where('state', '=', row.state)
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw new AarError('conflict', `card token \`${row.card_token_id}\` changed concurrently; retry`);
    await appendEvent(trx, ctx, {
      event_type: target === 'suspended' ? 'ns.card_token.suspended' : 'ns.card_token.activated',
      actor_entity_id: actorOf(credential),
      principal_entity_id: row.principal_entity_id,
      subject_ref: row.card_token_id,
      reason_code: target === 'suspended' ? 'card_token_suspended' : 'card_token_activated',
      data: { previous_state: row.state, new_state: target },
    });
    return cardTokenView(updated);
  });
}
