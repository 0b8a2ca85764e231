/**
 * Authentication and role checks (CONTRACT section 7), an onRequest hook: every route is authenticated unless it
 * says `config.public`, and admin-only unless it lists `config.roles`.
 *
 * Timing: the presented secret is hashed before it meets the database, and the lookup compares hashes. Timing of
 * that comparison (index walk, memcmp) can reveal at most how many leading characters of SHA-256(guess) match a
 * stored hash; choosing a guess whose hash has a chosen prefix is a preimage problem, so the leak is worthless
 * against 256-bit random secrets. No raw secret is ever compared with `===`.
 * The token never reaches a log: it is read from the header, hashed, and dropped.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AarError } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { prepareQuery } from '../store/prepared-query.ts';
import type { Credential } from './fastify-types.ts';
import { presentedTokenHash, readBearerToken } from './bearer-token.ts';
import type { FailedAuthLimiter } from './rate-limit.ts';
import { noteGrantVersion } from './request-grant-version.ts';
import { assertScope, parseStoredScopes } from './token-scopes.ts';
import { TokenUsage } from './token-usage.ts';

export { ensureBootstrapToken, hashToken } from './api-tokens.ts';

/** Query parameters that carry tokens elsewhere; a token in a URL lands in logs, histories and Referer headers. */
const QUERY_TOKEN_NAMES = new Set(['access_token', 'token', 'api_key']);

const CHALLENGE = 'Bearer';
const CHALLENGE_INVALID = 'Bearer error="invalid_token"';

export function registerAuthentication(app: FastifyInstance, ctx: AppContext, failedAuth: FailedAuthLimiter): void {
  const usage = new TokenUsage(ctx);
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404 || request.routeOptions.config?.public === true) return;
    if (hasQueryToken(request.query)) {
      reply.header('www-authenticate', CHALLENGE_INVALID);
      throw new AarError('unauthenticated', 'send the token in the `Authorization` header, never in the url');
    }
    const bearer = readBearerToken(request);
    if (bearer.kind === 'absent') {
      reply.header('www-authenticate', CHALLENGE);
      throw new AarError('unauthenticated', 'missing `Authorization: Bearer <token>` header');
    }
    if (bearer.kind === 'malformed') {
      reply.header('www-authenticate', CHALLENGE_INVALID);
      throw new AarError('unauthenticated', 'the `Authorization` header is not `Bearer <token>`');
    }
    await failedAuth.assertBudget(request);
    const tokenHash = presentedTokenHash(request, bearer.token);
    const credential =
      request.routeOptions.config?.grantVersion === true
        ? await lookUpCredentialAndGrantVersion(ctx, request, tokenHash)
        : await lookUpCredential(ctx, tokenHash);
    if (credential === undefined) {
      await failedAuth.record(request);
      reply.header('www-authenticate', CHALLENGE_INVALID);
      throw new AarError('unauthenticated', 'unknown or revoked token');
    }
    request.credential = credential;
    const noting = usage.note(credential.token_id);
    if (noting) await noting;
    assertRole(credential, request.routeOptions.config?.roles);
    assertScope(credential, request.routeOptions.config?.scope, ctx.config);
  });
}

/** Read on every request, never cached: a revoked token fails on the very next request. */
const CREDENTIAL_BY_HASH = prepareQuery(['token_hash'], (db, args: { token_hash: string }) =>
  db
    .selectFrom('api_tokens')
    .select(['token_id', 'role', 'principal_entity_id', 'connector_id', 'scopes'])
    .where('token_hash', '=', args.token_hash)
    .where('revoked_at', 'is', null),
);

/** The same lookup with the grant version beside it (one round trip for both; request-grant-version.ts). */
const CREDENTIAL_AND_GRANT_VERSION = prepareQuery(['token_hash'], (db, args: { token_hash: string }) =>
  db
    .selectFrom('api_tokens')
    .select(['token_id', 'role', 'principal_entity_id', 'connector_id', 'scopes'])
    .select((eb) => eb.selectFrom('grant_version').select('version').where('id', '=', 1).as('grant_version'))
    .where('token_hash', '=', args.token_hash)
    .where('revoked_at', 'is', null),
);

async function lookUpCredential(ctx: AppContext, tokenHash: string): Promise<Credential | undefined> {
  const [row] = (await CREDENTIAL_BY_HASH.execute(ctx.store.db, { token_hash: tokenHash })).rows;
  return row && credentialOfRow(row);
}

async function lookUpCredentialAndGrantVersion(
  ctx: AppContext,
  request: FastifyRequest,
  tokenHash: string,
): Promise<Credential | undefined> {
  const [row] = (await CREDENTIAL_AND_GRANT_VERSION.execute(ctx.store.db, { token_hash: tokenHash })).rows;
  if (!row) return undefined;
  // no row in grant_version reads as 0, as readGrantVersion does
  noteGrantVersion(request, Number(row.grant_version ?? 0));
  return credentialOfRow(row);
}

interface CredentialRow extends Omit<Credential, 'scopes'> {
  scopes: string;
}

function credentialOfRow(row: CredentialRow): Credential {
  return {
    token_id: row.token_id,
    role: row.role,
    principal_entity_id: row.principal_entity_id,
    connector_id: row.connector_id,
    scopes: parseStoredScopes(row.scopes),
  };
}

/** `admin` may do everything; a route without `roles` is admin-only. */
function assertRole(credential: Credential, roles: readonly string[] | undefined): void {
  if (credential.role === 'admin' || roles?.includes(credential.role)) return;
  throw new AarError('forbidden', `the \`${credential.role}\` role may not use this route`);
}

function hasQueryToken(query: unknown): boolean {
  if (typeof query !== 'object' || query === null) return false;
  return Object.keys(query).some((name) => QUERY_TOKEN_NAMES.has(name.toLowerCase()));
}

/**
 * For routes about one principal's resources: admin may act for anyone, a `principal` credential only for the
 * principal it is bound to; every other role is refused (403).
 */
export function requirePrincipalAccess(
  credential: Pick<Credential, 'role' | 'principal_entity_id'> | null,
  principalEntityId: string,
): void {
  if (credential === null) throw new AarError('unauthenticated', 'this route needs a credential');
  if (credential.role === 'admin') return;
  if (credential.role === 'principal' && credential.principal_entity_id === principalEntityId) return;
  throw new AarError('forbidden', `this credential may not act for principal \`${principalEntityId}\``);
}

/** The credential of an authenticated route; throws 401 if called on a public one. */
export function credentialOf(request: FastifyRequest): Credential {
  if (request.credential === null) throw new AarError('unauthenticated', 'this route needs a credential');
  return request.credential;
}
