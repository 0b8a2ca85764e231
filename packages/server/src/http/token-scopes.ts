/**
 * Token scopes and opt-in capabilities (CONTRACT section 22). A scope is `<capability>.<access>`; the closed list is
 * SCOPES. A route of an opt-in capability declares `config.scope` (one scope, or a list of which any one suffices);
 * the authentication hook then refuses, after the role check:
 * - 403 `capability_not_enabled` when the deployment has not enabled the capability (AAR_OPT_IN), for every
 *   credential, before anything else about the request is looked at;
 * - 403 `scope_missing` naming the scope(s) when the credential was not given one of them.
 * INVARIANT: scopes are granted explicitly, to every role alike: an admin token without `memory.read` cannot read
 * memory. Attacker assumption: a token holder may call any route; only the stored scopes (set at creation, never
 * changed afterwards) decide.
 */
import { AarError, fieldError } from '@aar/core';
import type { AppConfig, OptInCapability } from '../config.ts';
import type { Credential } from './fastify-types.ts';

export const SCOPES = ['memory.read', 'memory.write', 'reports.read', 'reports.write', 'search.read'] as const;
export type TokenScope = (typeof SCOPES)[number];

export function isTokenScope(value: unknown): value is TokenScope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** The capability a scope belongs to: the part before the dot. */
export function capabilityOf(scope: TokenScope): OptInCapability {
  return scope.slice(0, scope.indexOf('.')) as OptInCapability;
}

/**
 * The scopes a new token asks for, checked: each must be one of SCOPES (400 naming `/scopes/<i>`) and of an enabled
 * capability (403 `capability_not_enabled` naming it). Returned sorted and without duplicates (the stored form).
 */
export function checkRequestedScopes(requested: readonly unknown[] | undefined, config: AppConfig): TokenScope[] {
  if (requested === undefined) return [];
  const out = new Set<TokenScope>();
  requested.forEach((scope, i) => {
    if (!isTokenScope(scope)) {
      throw fieldError('invalid_request', `/scopes/${i}`, `must be one of ${SCOPES.join(', ')}`);
    }
    const capability = capabilityOf(scope);
    if (!config.optIn.has(capability)) {
      throw new AarError(
        'capability_not_enabled',
        `/scopes/${i}: the \`${capability}\` capability is not enabled on this deployment (AAR_OPT_IN)`,
        { errors: [{ path: `/scopes/${i}`, message: `the \`${capability}\` capability is not enabled` }] },
      );
    }
    out.add(scope);
  });
  return [...out].sort();
}

/** The stored form of a token's scopes (api_tokens.scopes): a JSON array, sorted, unique. */
export function storedScopes(scopes: readonly TokenScope[]): string {
  return JSON.stringify([...new Set(scopes)].sort());
}

/**
 * Reads api_tokens.scopes. Anything that is not a JSON array of known scopes reads as no scope at all (fail closed:
 * a damaged row grants nothing).
 */
export function parseStoredScopes(raw: string | null | undefined): TokenScope[] {
  if (typeof raw !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed) || !parsed.every(isTokenScope)) return [];
  return parsed;
}

/** The route's scope requirement, enforced (see the file comment for the order of the refusals). */
export function assertScope(
  credential: Credential,
  required: TokenScope | readonly TokenScope[] | undefined,
  config: AppConfig,
): void {
  if (required === undefined) return;
  const anyOf: readonly TokenScope[] = typeof required === 'string' ? [required] : required;
  if (anyOf.length === 0) return;
  const capabilities = [...new Set(anyOf.map(capabilityOf))];
  const disabled = capabilities.filter((c) => !config.optIn.has(c));
  if (disabled.length === capabilities.length) {
    throw new AarError(
      'capability_not_enabled',
      `the \`${disabled.join('`, `')}\` capability is not enabled on this deployment (AAR_OPT_IN)`,
    );
  }
  if (anyOf.some((scope) => config.optIn.has(capabilityOf(scope)) && credential.scopes.includes(scope))) return;
  const names = anyOf.map((s) => `\`${s}\``).join(' or ');
  // `required_scopes` names what is missing (problem extension member); the credential's own scopes are not echoed
  throw new AarError(
    'scope_missing',
    `this route needs the token scope ${names}, which this credential was not given`,
    {
      extra: { required_scopes: [...anyOf] },
    },
  );
}
