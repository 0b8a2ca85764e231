/**
 * `POST /v1/mandates/{id}/revoke` (and `/v1/allowances/{id}/revoke`): revokes the mandate's grant through the grant
 * revocation cascade (revoke-grant.ts), so in ONE write-queue unit its grant and any grant below it get their
 * revocation rows and `ns.authority.revoked` events, and the mandate its `ns.mandate.revoked`
 * (revocation-events.ts, called by the cascade). Who may: an admin, or a principal credential of the mandate's
 * principal (the cascade's own rule). Another principal's mandate reads as absent (404). Revoking a mandate whose
 * grant is revoked already answers 200 with `already_revoked: true` and writes nothing.
 */
import { AarError } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { revokeGrant, type RevokeGrantResult } from '../grants/revoke-grant.ts';
import { parseMandateId, type MandateKind } from './mandate-ids.ts';

export interface RevokeMandateResult {
  mandate_id: string;
  state: 'revoked';
  grant: RevokeGrantResult;
}

export async function revokeMandate(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
  kind: MandateKind,
): Promise<RevokeMandateResult> {
  const id = parseMandateId(kind, rawId, '/params/id');
  const row = await ctx.store.db
    .selectFrom('mandates')
    .select(['grant_id', 'principal_entity_id'])
    .where('mandate_id', '=', id)
    .executeTakeFirst();
  if (!row || (credential?.role === 'principal' && credential.principal_entity_id !== row.principal_entity_id)) {
    throw new AarError('not_found', `${kind} \`${id}\` does not exist`);
  }
  return { mandate_id: id, state: 'revoked', grant: await revokeGrant(ctx, credential, row.grant_id) };
}
