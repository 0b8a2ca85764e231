/**
 * Secrets shown once: a new API token's `token` (CONTRACT section 11) and a webhook endpoint's `whsec_` `secret`
 * (section 9, at creation and at rotation). A route whose answer carries one names those members in
 * `config.oneTimeSecrets`. Then:
 * - the answer is sent with `Cache-Control: no-store`, so no browser or proxy cache keeps it (its replay too);
 * - the `Idempotency-Key` record (idempotency.ts) stores the answer WITHOUT those members and with
 *   `secret_omitted: true`: the replay answers the same status and resource and says that the secret is not in it.
 * INVARIANT: no secret is ever written to `idempotency_keys`. Attacker assumption: whoever reads the database (a
 * backup, a replica, an operator's query) must find no usable credential in it; API tokens are kept as hashes only,
 * and the idempotency table must not undo that for 24 hours.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** top-level members of this route's answer that hold a secret shown once (never stored, never replayed) */
    oneTimeSecrets?: readonly string[];
  }
}

/** The member a replayed answer carries instead of its secret. */
export const SECRET_OMITTED = 'secret_omitted';

export const SECRET_OMITTED_DESCRIPTION =
  'present (`true`) only on an idempotent replay (`Idempotent-Replayed: true`): the secret was in the first answer ' +
  'only and is stored nowhere, so it is not repeated';

/** The secret-bearing members of the route that answered `request`; empty for every other route. */
export function oneTimeSecretMembers(request: FastifyRequest): readonly string[] {
  return request.routeOptions.config?.oneTimeSecrets ?? [];
}

/** `Cache-Control: no-store` on every answer of a route that can carry a secret (the first and the replays). */
export function markNoStore(request: FastifyRequest, reply: FastifyReply): void {
  if (oneTimeSecretMembers(request).length > 0) reply.header('cache-control', 'no-store');
}

/**
 * The answer as it may be stored: a JSON object without `members`, plus `secret_omitted: true` when one was there.
 * Anything else (a problem document, an empty body) carries no secret and is returned as it is. A body that does not
 * parse throws: the caller then stores nothing (failing closed) rather than bytes that may hold the secret.
 */
export function withoutOneTimeSecrets(body: Buffer, members: readonly string[]): Buffer {
  if (members.length === 0 || body.length === 0) return body;
  const value: unknown = JSON.parse(body.toString('utf8'));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return body;
  const record = value as Record<string, unknown>;
  if (!members.some((member) => Object.hasOwn(record, member))) return body;
  const kept: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(record)) if (!members.includes(name)) kept[name] = member;
  kept[SECRET_OMITTED] = true;
  return Buffer.from(JSON.stringify(kept), 'utf8');
}
