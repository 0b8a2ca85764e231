/**
 * An issuer's JWKS, from the body or fetched ONCE from its `jwks_uri` when the issuer is registered
 * (register-issuer.ts), then kept in `mandate_issuers.jwks`: a mandate's issuer key comes from that row only, never
 * from the network at verification time and never from the mandate itself.
 * Outbound fetch through the webhook SSRF guard (services/webhooks/target-guard.ts): https only, no userinfo, every
 * address the name resolves to checked, the socket pinned to the checked address, no redirects, 64 KiB and 10 s at
 * most. `AAR_WEBHOOK_ALLOW_INSECURE=true` (development and tests) allows http and loopback, as for webhooks.
 * Attacker assumption: an admin credential may be misused to make the service fetch an internal URL; the guard
 * refuses it, and an answer is read only as a JWKS (public key members kept, everything else dropped).
 */
import { AarError, fieldError } from '@aar/core';
import { Agent, request } from 'undici';
import type { AppContext } from '../../app-context.ts';
import { isTargetRefusal, parseTarget, pinnedLookup, resolveTarget, systemResolver } from '../webhooks/target-guard.ts';

export interface PublicJwk {
  kty: string;
  [member: string]: string;
}

export interface Jwks {
  keys: PublicJwk[];
}

const MAX_JWKS_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 10_000;
const MAX_KEYS = 32;
/** the members of a public JWK kept; a private member (`d`, `p`, `k`...) is never stored */
const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'] as const;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'] as const;

/** The public keys of a JWKS value; 422-free: throws `invalid_request` naming the offending member under `path`. */
export function readJwks(value: unknown, path: string): Jwks {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fieldError('invalid_request', path, 'must be a JWKS object `{ "keys": [...] }`');
  }
  const keys = (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_KEYS) {
    throw fieldError('invalid_request', `${path}/keys`, `must be an array of 1 to ${MAX_KEYS} JWKs`);
  }
  return {
    keys: keys.map((key: unknown, i) => {
      const at = `${path}/keys/${i}`;
      if (typeof key !== 'object' || key === null || Array.isArray(key)) {
        throw fieldError('invalid_request', at, 'must be a JWK object');
      }
      const source = key as Record<string, unknown>;
      if (PRIVATE_MEMBERS.some((m) => source[m] !== undefined)) {
        throw fieldError('invalid_request', at, 'holds a private or secret key member: give the public key only');
      }
      if (source.kty !== 'EC' && source.kty !== 'OKP') {
        throw fieldError('invalid_request', `${at}/kty`, 'must be `EC` (P-256, P-384) or `OKP` (Ed25519)');
      }
      const jwk: PublicJwk = { kty: source.kty };
      for (const member of PUBLIC_MEMBERS) {
        const v = source[member];
        if (v === undefined) continue;
        if (typeof v !== 'string' || v.length === 0 || v.length > 512) {
          throw fieldError('invalid_request', `${at}/${member}`, 'must be a non-empty string');
        }
        jwk[member] = v;
      }
      return jwk;
    }),
  };
}

/** Fetches and reads the JWKS at `url` through the SSRF guard; 422 `reference_invalid` at `/jwks_uri` otherwise. */
export async function fetchJwks(ctx: AppContext, url: string): Promise<Jwks> {
  const allowInsecure = ctx.config.webhookAllowInsecure;
  const resolve = ctx.resolveHost ?? systemResolver;
  const refused = (message: string) => fieldError('reference_invalid', '/jwks_uri', message);
  let target;
  try {
    target = parseTarget(url, allowInsecure);
    await resolveTarget(target, resolve, allowInsecure);
  } catch (error) {
    if (isTargetRefusal(error)) throw refused(error.errors?.[0]?.message ?? 'is refused');
    throw error;
  }
  const agent = new Agent({ connect: { lookup: pinnedLookup(resolve, allowInsecure), timeout: FETCH_TIMEOUT_MS } });
  try {
    const response = await request(target.url, {
      dispatcher: agent,
      method: 'GET',
      headers: { accept: 'application/jwk-set+json, application/json' },
      headersTimeout: FETCH_TIMEOUT_MS,
      bodyTimeout: FETCH_TIMEOUT_MS,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw refused(`answered HTTP ${response.statusCode} (redirects are not followed)`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_JWKS_BYTES) {
        response.body.destroy();
        throw refused(`answered more than ${MAX_JWKS_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw refused('did not answer JSON');
    }
    try {
      return readJwks(parsed, '/jwks_uri');
    } catch (error) {
      throw error instanceof AarError
        ? refused(`did not answer a usable JWKS: ${error.errors?.[0]?.message ?? ''}`)
        : error;
    }
  } catch (error) {
    if (error instanceof AarError) throw error;
    throw refused('could not be fetched (connection refused, timed out or reset)');
  } finally {
    await agent.close().catch(() => undefined);
  }
}
