import { entityId, fieldError, isLocalId, jwkThumbprint, parsePublicEd25519Jwk, type EntityType } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { duplicateAsConflict } from '../unique-violation.ts';
import { entityView, type EntityView } from './entity-view.ts';
import { parseTimeZone } from './time-zone.ts';

export interface CreateEntityInput {
  type: EntityType;
  id?: string | undefined;
  display_name: string;
  public_key_jwk?: unknown;
  /** IANA zone of the principal's local time (rules' `facts.local_time`); UTC when absent */
  time_zone?: string | undefined;
}

export async function createEntity(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateEntityInput,
): Promise<EntityView> {
  const local = input.id ?? ctx.newUuid();
  if (!isLocalId(local)) throw fieldError('invalid_id', '/id', 'must match `[A-Za-z0-9._-]{1,128}`');
  const id = entityId(input.type, local);
  const jwk =
    input.public_key_jwk === undefined ? undefined : parsePublicEd25519Jwk(input.public_key_jwk, '/public_key_jwk');
  const publicJwk = jwk ? { kty: jwk.kty, crv: jwk.crv, x: jwk.x } : null;
  const thumbprint = publicJwk ? await jwkThumbprint(publicJwk) : null;
  const timeZone = input.time_zone === undefined ? null : parseTimeZone(input.time_zone, '/time_zone');
  const now = ctx.clock.now().toISOString();
  try {
    return await ctx.writer.run(async (trx) => {
      const row = await trx
        .insertInto('entities')
        .values({
          entity_id: id,
          type: input.type,
          display_name: input.display_name,
          public_key_jwk: publicJwk ? JSON.stringify(publicJwk) : null,
          key_thumbprint: thumbprint,
          state: 'active',
          time_zone: timeZone,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await appendEvent(trx, ctx, {
        event_type: 'ns.entity.created',
        actor_entity_id: actorOf(credential),
        principal_entity_id: input.type === 'agent' ? null : id,
        subject_ref: id,
        reason_code: 'entity_registered',
        // personal data (display names) stays out of events: they outlive erasure
        // the time zone only when given (an entity without one keeps the event's earlier shape): the chain restates it
        data: {
          type: input.type,
          has_public_key: publicJwk !== null,
          key_thumbprint: thumbprint,
          ...(timeZone === null ? {} : { time_zone: timeZone }),
        },
      });
      return entityView(row);
    });
  } catch (error) {
    throw duplicateAsConflict(error, `entity \`${id}\``, '/id');
  }
}
