import type { ErrorCode } from '@aar/core';
import type { Role } from '../store/schema.ts';
import type { TokenScope } from './token-scopes.ts';

/** The authenticated caller. Attacker assumption: everything else about the request is caller-controlled. */
export interface Credential {
  token_id: string;
  role: Role;
  /** set only for the `principal` role: the one principal this credential may act for */
  principal_entity_id: string | null;
  /** the connector this credential is bound to (CONTRACT section 15): its manifest's rules apply to its requests */
  connector_id?: string | null;
  /**
   * the token scopes it was given at creation (CONTRACT section 22; sorted, unique), read in the same lookup as the
   * role. Empty for most tokens: an opt-in route (`config.scope`) refuses a credential without its scope, whatever
   * its role.
   */
  scopes: readonly TokenScope[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** null on public routes; on every other route the auth hook guarantees a credential or answers 401 */
    credential: Credential | null;
    /** the exact body bytes as received (signature and Content-Digest checks need them, not a re-serialisation) */
    rawBody: Uint8Array | undefined;
  }
  interface FastifyContextConfig {
    /** public routes skip authentication (health, JWKS, OpenAPI, docs, metrics) */
    public?: boolean;
    /** roles allowed on this route; `admin` is always allowed */
    roles?: readonly Role[];
    /** the auth hook reads the grant version with the credential, in one statement (request-grant-version.ts) */
    grantVersion?: boolean;
    /**
     * The token scope an opt-in route needs (or a list: any one of them). The auth hook refuses, after the role check,
     * 403 `capability_not_enabled` when the scope's capability is not in AAR_OPT_IN, then 403 `scope_missing` when
     * the credential lacks it, for every role including admin (token-scopes.ts).
     */
    scope?: TokenScope | readonly TokenScope[];
    /**
     * Route-specific error codes beyond those every route of its kind can give (the OpenAPI document derives the
     * rest: 401/403 for authenticated routes, 400 for validated input, 404 for path ids, 409/422 for idempotent POSTs,
     * 413/415 for bodies, 429 everywhere, 503 for writes). Documentation only: it changes no behaviour.
     */
    errors?: readonly ErrorCode[];
  }
}
