import {
  AarError,
  cardCredentialId,
  fieldError,
  mintedId,
  parseCardTokenRef,
  parseEntityId,
  signDocument,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { requirePrincipalAccess } from '../../http/authenticate.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { appendEvent } from '../events/append-event.ts';
import { delegateGrant } from './delegate-grant.ts';
import { parseGrantScope, scopeToWire } from './grant-scope.ts';
import { grantLink } from './grant-link.ts';
import { grantView, type GrantView } from './grant-view.ts';
import { assertRootGrantBounded } from './root-grant-limits.ts';
import { GRANTABLE_CAPABILITIES } from './purchase-actions.ts';

/** The `POST /v1/grants` body. A root grant names every field; a sub-delegation names its parent and may omit the rest. */
export interface CreateGrantInput {
  principal_entity_id?: string | undefined;
  actor_entity_id: string;
  capability_id?: string | undefined;
  resource_id?: string | undefined;
  scope?: Record<string, unknown> | undefined;
  parent_grant_id?: string | undefined;
  /** the delegator's signature over the request (sub-delegations, when the delegator has a key) */
  delegator_proof?: unknown;
}

/**
 * Creates a grant. With `parent_grant_id` it is a sub-delegation (delegate-grant.ts); without, a root grant: the
 * principal delegates authority over one card token to an actor. Every reference is checked inside the transaction
 * that writes the grant, so a grant never points at a missing or foreign token.
 */
export async function createGrant(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateGrantInput,
): Promise<GrantView> {
  if (input.parent_grant_id !== undefined) {
    return delegateGrant(ctx, credential, { ...input, parent_grant_id: input.parent_grant_id });
  }
  if (input.delegator_proof !== undefined) {
    throw fieldError('invalid_request', '/delegator_proof', 'is only for a sub-delegation (with `parent_grant_id`)');
  }
  for (const field of ['principal_entity_id', 'capability_id', 'resource_id', 'scope'] as const) {
    if (input[field] === undefined) throw fieldError('invalid_request', `/${field}`, 'is required for a root grant');
  }
  const root = input as Required<Pick<CreateGrantInput, 'principal_entity_id' | 'capability_id' | 'resource_id'>> &
    CreateGrantInput & { scope: Record<string, unknown> };
  return createRootGrant(ctx, credential, root);
}

async function createRootGrant(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateGrantInput & {
    principal_entity_id: string;
    capability_id: string;
    resource_id: string;
    scope: Record<string, unknown>;
  },
): Promise<GrantView> {
  const principal = parseEntityId(input.principal_entity_id, '/principal_entity_id', ['person', 'organisation']);
  const actor = parseEntityId(input.actor_entity_id, '/actor_entity_id');
  if (actor.id === principal.id)
    throw fieldError('invalid_request', '/actor_entity_id', 'must differ from the principal');
  if (credential?.role === 'principal') requirePrincipalAccess(credential, principal.id);
  if (!GRANTABLE_CAPABILITIES.includes(input.capability_id)) {
    throw fieldError(
      'invalid_request',
      '/capability_id',
      `must be one of ${GRANTABLE_CAPABILITIES.map((c) => `\`${c}\``).join(', ')}`,
    );
  }
  const tokenLocal = parseCardTokenRef(input.resource_id, '/resource_id');
  const now = ctx.clock.now();
  const scope = parseGrantScope(input.scope, now);
  assertRootGrantBounded(input.capability_id, scope);
  const grantId = mintedId('authority:grant', ctx.newUuid());
  const resourceId = cardCredentialId(tokenLocal);
  const issuedAt = now.toISOString();

  return ctx.writer.run(async (trx) => {
    const entities = await trx
      .selectFrom('entities')
      .select(['entity_id', 'state'])
      .where('entity_id', 'in', [principal.id, actor.id])
      .execute();
    for (const [ref, path] of [
      [principal.id, '/principal_entity_id'],
      [actor.id, '/actor_entity_id'],
    ] as const) {
      const found = entities.find((e) => e.entity_id === ref);
      if (!found) throw fieldError('reference_not_found', path, `\`${ref}\` does not exist`);
      if (found.state !== 'active') throw fieldError('reference_invalid', path, `\`${ref}\` is ${found.state}`);
    }
    const token = await trx
      .selectFrom('card_tokens')
      .select(['principal_entity_id', 'state'])
      .where('card_token_id', '=', `ns:card_token:${tokenLocal}`)
      .executeTakeFirst();
    if (!token) throw fieldError('reference_not_found', '/resource_id', `card token \`${resourceId}\` does not exist`);
    if (token.principal_entity_id !== principal.id) {
      throw fieldError('reference_invalid', '/resource_id', 'the card token belongs to another principal');
    }
    if (token.state !== 'active') throw fieldError('reference_invalid', '/resource_id', `card token is ${token.state}`);

    const link = await signDocument(
      grantLink({
        grant_id: grantId,
        parent_grant_id: null,
        principal_entity_id: principal.id,
        actor_entity_id: actor.id,
        capability_id: input.capability_id,
        resource_id: resourceId,
        scope: scopeToWire(scope),
        depth: 0,
        issued_at: issuedAt,
      }),
      ctx.keys.current(),
    );
    const row = await trx
      .insertInto('grants')
      .values({
        grant_id: grantId,
        parent_grant_id: null,
        root_grant_id: grantId,
        depth: 0,
        principal_entity_id: principal.id,
        actor_entity_id: actor.id,
        capability_id: input.capability_id,
        resource_id: resourceId,
        scope: JSON.stringify(scope),
        state: 'active',
        document: JSON.stringify(link),
        delegator_signature: null,
        created_by: credential?.token_id ?? null,
        created_at: issuedAt,
        updated_at: issuedAt,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendEvent(trx, ctx, {
      event_type: 'ns.authority.granted',
      actor_entity_id: actorOf(credential),
      principal_entity_id: principal.id,
      subject_ref: grantId,
      reason_code: 'principal_granted_authority',
      data: {
        new_state: 'active',
        grantee_entity_id: actor.id,
        capability_id: input.capability_id,
        resource_id: resourceId,
        scope: scopeToWire(scope),
      },
    });
    return grantView(row);
  });
}

export function grantNotFound(id: string): AarError {
  return new AarError('not_found', `grant \`${id}\` does not exist`);
}
