/**
 * API credentials (CONTRACT section 7). A token is `aar_` + 32 random bytes (base64url); only its SHA-256 is
 * stored. INVARIANT: a principal token is bound to exactly one existing principal; a pep token to at most one (it then
 * evaluates for that principal only); no other role is bound.
 */
import { randomBytes } from 'node:crypto';
import { AarError, fieldError, mintedId, parseEntityId, parseMintedId } from '@aar/core';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { hashToken, TOKEN_PREFIX } from '../../http/api-tokens.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { checkRequestedScopes, parseStoredScopes, storedScopes, type TokenScope } from '../../http/token-scopes.ts';
import { toPage, type Page, type PageRequest } from '../../routes/pagination.ts';
import type { ApiTokensTable, Role } from '../../store/index.ts';
import { actorOf } from '../actor-of.ts';
import { bindableConnector } from '../connectors/bindable-connector.ts';
import { appendEvent } from '../events/append-event.ts';

export interface TokenInfo {
  token_id: string;
  role: Role;
  principal_entity_id: string | null;
  label: string | null;
  connector_id: string | null;
  /** the token scopes it was given (CONTRACT section 22), sorted */
  scopes: TokenScope[];
  created_at: string;
  revoked_at: string | null;
}

export interface CreateTokenInput {
  role: Role;
  principal_entity_id?: string | undefined;
  label?: string | undefined;
  /** binds the credential to a catalogue connector: its manifest's rules then apply to its requests */
  connector_id?: string | undefined;
  /**
   * token scopes (CONTRACT section 22), granted explicitly: each of the closed list (400 naming `/scopes/<i>`) and of a
   * capability this deployment enables (403 `capability_not_enabled`)
   */
  scopes?: readonly string[] | undefined;
}

export function tokenInfo(row: Selectable<ApiTokensTable>): TokenInfo {
  return {
    token_id: row.token_id,
    role: row.role,
    principal_entity_id: row.principal_entity_id,
    label: row.label,
    connector_id: row.connector_id,
    scopes: parseStoredScopes(row.scopes),
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}

export function newTokenSecret(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Registers `secret` (generated unless given: the bootstrap token is given) and writes its event. */
export async function createToken(
  ctx: AppContext,
  credential: Credential | null,
  input: CreateTokenInput,
  secret: string = newTokenSecret(),
): Promise<TokenInfo & { token: string }> {
  let principalId: string | null = null;
  if (input.role === 'principal' && input.principal_entity_id === undefined) {
    throw fieldError('invalid_request', '/principal_entity_id', 'is required for the principal role');
  }
  if (input.role === 'principal' || (input.role === 'pep' && input.principal_entity_id !== undefined)) {
    principalId = parseEntityId(input.principal_entity_id, '/principal_entity_id', ['person', 'organisation']).id;
  } else if (input.principal_entity_id !== undefined) {
    throw fieldError('invalid_request', '/principal_entity_id', 'is allowed only for the principal and pep roles');
  }
  const connectorId =
    input.connector_id === undefined ? null : bindableConnector(input.connector_id, '/connector_id').connector_id;
  const scopes = checkRequestedScopes(input.scopes, ctx.config);
  const tokenId = mintedId('token', ctx.newUuid());
  const now = ctx.clock.now().toISOString();
  return ctx.writer.run(async (trx) => {
    if (principalId) {
      const principal = await trx
        .selectFrom('entities')
        .select('state')
        .where('entity_id', '=', principalId)
        .executeTakeFirst();
      if (!principal)
        throw fieldError('reference_not_found', '/principal_entity_id', `\`${principalId}\` does not exist`);
      if (principal.state === 'tombstoned')
        throw fieldError('reference_invalid', '/principal_entity_id', `\`${principalId}\` is tombstoned`);
    }
    const row = await trx
      .insertInto('api_tokens')
      .values({
        token_id: tokenId,
        token_hash: hashToken(secret),
        role: input.role,
        principal_entity_id: principalId,
        label: input.label ?? null,
        connector_id: connectorId,
        scopes: storedScopes(scopes),
        created_at: now,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendEvent(trx, ctx, {
      event_type: 'ns.credential.created',
      actor_entity_id: actorOf(credential),
      principal_entity_id: principalId,
      subject_ref: tokenId,
      reason_code: 'credential_issued',
      data: { role: input.role },
    });
    return { ...tokenInfo(row), token: secret };
  });
}

export async function listTokens(ctx: AppContext, page: PageRequest): Promise<Page<TokenInfo>> {
  const rows = await ctx.store.db
    .selectFrom('api_tokens')
    .selectAll()
    .where('seq', '>', page.afterSeq)
    .orderBy('seq')
    .limit(page.limit + 1)
    .execute();
  return toPage(rows, page.limit, tokenInfo);
}

/** Revocation takes effect on the next request: authentication reads the table every time, nothing is cached. */
export async function revokeToken(ctx: AppContext, credential: Credential | null, rawId: string): Promise<TokenInfo> {
  const id = parseMintedId('token', rawId, '/params/id');
  return ctx.writer.run(async (trx) => {
    const row = await trx.selectFrom('api_tokens').selectAll().where('token_id', '=', id).executeTakeFirst();
    if (!row) throw new AarError('not_found', `token \`${id}\` does not exist`);
    if (row.revoked_at) return tokenInfo(row);
    const now = ctx.clock.now().toISOString();
    const updated = await trx
      .updateTable('api_tokens')
      .set({ revoked_at: now })
      .where('token_id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await appendEvent(trx, ctx, {
      event_type: 'ns.credential.revoked',
      actor_entity_id: actorOf(credential),
      principal_entity_id: row.principal_entity_id,
      subject_ref: id,
      reason_code: 'credential_revoked',
      data: { role: row.role, previous_state: 'active', new_state: 'revoked' },
    });
    return tokenInfo(updated);
  });
}
