/**
 * DELETE /v1/entities/{id}: right to erasure. In one write-queue unit: the entity's personal data goes (display
 * name, public key, thumbprint), and for a principal its card tokens' network token, last4 and expiry (also the
 * last4 its `ns.card_token.created` events carried), its tokens are suspended and its principal credentials revoked;
 * `ns.entity.tombstoned` is written, with (reason `entity_erased`) `ns.card_token.suspended` for each token that was
 * active and `ns.credential.revoked` for each credential; then the subject salts of the entity and its card tokens
 * are deleted, so every commitment to them in the write-once chain becomes unlinkable while the chain keeps
 * verifying.
 * Decisions and evidence packs are kept as they are (docs/audit.md, "Erasure", says why).
 * INVARIANT: a tombstoned entity never comes back: its row stays (so its id cannot be registered again) and
 * suspend/activate refuse it.
 */
import { AarError, parseEntityId } from '@aar/core';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { Database } from '../../store/index.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { entityView, type EntityView } from './entity-view.ts';

/** What an erased card token keeps in its NOT NULL network_token column. */
export const ERASED = 'erased';

export async function tombstoneEntity(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
): Promise<EntityView> {
  const { id } = parseEntityId(rawId, '/params/id');
  return ctx.writer.run(async (trx) => {
    const row = await trx.selectFrom('entities').selectAll().where('entity_id', '=', id).executeTakeFirst();
    if (!row) throw new AarError('not_found', `entity \`${id}\` does not exist`);
    if (row.state === 'tombstoned') return entityView(row);
    const now = ctx.clock.now().toISOString();
    const updated = await trx
      .updateTable('entities')
      .set({ state: 'tombstoned', display_name: null, public_key_jwk: null, key_thumbprint: null, updated_at: now })
      .where('entity_id', '=', id)
      .where('state', '=', row.state)
      .returningAll()
      .executeTakeFirst();
    if (!updated) throw new AarError('conflict', `entity \`${id}\` changed concurrently; retry`);

    const tokens = await trx
      .selectFrom('card_tokens')
      .select(['card_token_id', 'state'])
      .where('principal_entity_id', '=', id)
      .execute();
    const tokenIds = tokens.map((t) => t.card_token_id);
    let revokedCredentials = 0;
    if (row.type !== 'agent') {
      if (tokenIds.length > 0) {
        await trx
          .updateTable('card_tokens')
          .set({ network_token: ERASED, last4: null, expires: null, state: 'suspended', updated_at: now })
          .where('card_token_id', 'in', tokenIds)
          .execute();
        await eraseCardTokenEventData(trx, tokenIds);
      }
      const credentials = await trx
        .selectFrom('api_tokens')
        .select(['token_id', 'role'])
        .where('principal_entity_id', '=', id)
        .where('revoked_at', 'is', null)
        .orderBy('seq')
        .execute();
      if (credentials.length > 0) {
        await trx
          .updateTable('api_tokens')
          .set({ revoked_at: now })
          .where(
            'token_id',
            'in',
            credentials.map((c) => c.token_id),
          )
          .execute();
      }
      revokedCredentials = credentials.length;
      // every state change has its own event, so a consumer following card tokens or credentials sees these too
      for (const t of tokens.filter((t) => t.state === 'active')) {
        await appendEvent(trx, ctx, {
          event_type: 'ns.card_token.suspended',
          actor_entity_id: actorOf(credential),
          principal_entity_id: id,
          subject_ref: t.card_token_id,
          reason_code: 'entity_erased',
          data: { previous_state: 'active', new_state: 'suspended' },
        });
      }
      for (const c of credentials) {
        await appendEvent(trx, ctx, {
          event_type: 'ns.credential.revoked',
          actor_entity_id: actorOf(credential),
          principal_entity_id: id,
          subject_ref: c.token_id,
          reason_code: 'entity_erased',
          data: { role: c.role, previous_state: 'active', new_state: 'revoked' },
        });
      }
    }

    await appendEvent(trx, ctx, {
      event_type: 'ns.entity.tombstoned',
      actor_entity_id: actorOf(credential),
      principal_entity_id: row.type === 'agent' ? null : id,
      subject_ref: id,
      reason_code: 'entity_erased',
      data: {
        type: row.type,
        previous_state: row.state,
        new_state: 'tombstoned',
        card_tokens_erased: row.type === 'agent' ? 0 : tokenIds.length,
        credentials_revoked: revokedCredentials,
      },
    });
    // After the event: its own audit entry still used the salt; from now on nothing links the commitments to `id`.
    await trx
      .deleteFrom('subject_salts')
      .where('subject_ref', 'in', [id, ...(row.type === 'agent' ? [] : tokenIds)])
      .execute();
    return entityView(updated);
  });
}

/**
 * `ns.card_token.created` envelopes carried `last4`; erasure removes it from the stored envelope. The audit entry of
 * that event committed to the original envelope by digest only, so the chain is untouched and still verifies.
 */
async function eraseCardTokenEventData(trx: Transaction<Database>, tokenIds: readonly string[]): Promise<void> {
  const events = await trx
    .selectFrom('events')
    .select(['event_id', 'envelope'])
    .where('event_type', '=', 'ns.card_token.created')
    .where('subject_ref', 'in', tokenIds)
    .execute();
  for (const event of events) {
    const envelope = JSON.parse(event.envelope) as { data?: Record<string, unknown> };
    if (!envelope.data || !('last4' in envelope.data)) continue;
    envelope.data = { ...envelope.data, last4: null, erased: true };
    await trx
      .updateTable('events')
      .set({ envelope: JSON.stringify(envelope) })
      .where('event_id', '=', event.event_id)
      .execute();
  }
}
