import { cardTokenId, fieldError, isLocalId, parseEntityId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { requirePrincipalAccess } from '../../http/authenticate.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { duplicateAsConflict } from '../unique-violation.ts';
import { cardTokenView, type CardTokenView } from './card-token-view.ts';

export interface CreateCardTokenInput {
  id?: string | undefined;
  principal_entity_id: string;
  network_token: string;
  network?: string | undefined;
  last4?: string | undefined;
  expires?: string | undefined;
}

/**
 * Binds a network token to its principal. Raw card numbers never get here: the body parser refuses any
 * Luhn-valid 12-19 digit value in any field (pan_refused) before a route runs.
 */
export async function createCardToken(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateCardTokenInput,
): Promise<CardTokenView> {
  const local = input.id ?? ctx.newUuid();
  if (!isLocalId(local)) throw fieldError('invalid_id', '/id', 'must match `[A-Za-z0-9._-]{1,128}`');
  const principal = parseEntityId(input.principal_entity_id, '/principal_entity_id', ['person', 'organisation']);
  if (credential?.role === 'principal') requirePrincipalAccess(credential, principal.id);
  const id = cardTokenId(local);
  const now = ctx.clock.now().toISOString();
  try {
    return await ctx.writer.run(async (trx) => {
      const owner = await trx
        .selectFrom('entities')
        .select(['state'])
        .where('entity_id', '=', principal.id)
        .executeTakeFirst();
      if (!owner)
        throw fieldError('reference_not_found', '/principal_entity_id', `principal \`${principal.id}\` does not exist`);
      if (owner.state !== 'active')
        throw fieldError(
          'reference_invalid',
          '/principal_entity_id',
          `principal \`${principal.id}\` is ${owner.state}`,
        );
      const row = await trx
        .insertInto('card_tokens')
        .values({
          card_token_id: id,
          principal_entity_id: principal.id,
          network_token: input.network_token,
          network: input.network ?? null,
          last4: input.last4 ?? null,
          expires: input.expires ?? null,
          state: 'active',
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await appendEvent(trx, ctx, {
        event_type: 'ns.card_token.created',
        actor_entity_id: actorOf(credential),
        principal_entity_id: principal.id,
        subject_ref: id,
        reason_code: 'card_token_bound',
        data: { network: row.network, last4: row.last4 },
      });
      return cardTokenView(row);
    });
  } catch (error) {
    throw duplicateAsConflict(error, `card token \`${id}\``, '/id');
  }
}
