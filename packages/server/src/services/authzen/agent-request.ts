/**
 * `context.agent_request` (CONTRACT section 20): the agent's own RFC 9421-signed HTTP request as the PEP received it,
 * verified exactly as section 3 verifies a signed authorize, with one difference: the `@target-uri` candidates are the
 * deployment's PEP base URLs (AAR_PEP_URLS) joined with the path and query the forwarded request names, never this
 * service's public URLs.
 * Attacker assumptions: the PEP is authenticated (its token) but relays what the agent sent, so every member of
 * `agent_request` is hostile. The host of `target_uri` is not trusted: only its path and query are used, so a
 * signature the agent made for a gateway of another deployment never verifies here. The key comes only from the
 * agent's registration at the version this decision reads (its `keyid` must name the acting agent), the nonce is
 * remembered by the decision's own transaction (a replayed forwarded request is denied like a replayed authorize),
 * and the body is checked against `content-digest` when the signature covers it.
 */
import {
  fieldError,
  MAX_TARGET_URIS,
  tryParseEntityId,
  verifyRequestSignature,
  type Ed25519PublicJwk,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { nativeEd25519VerifyOffThread } from '../../crypto/native-ed25519.ts';
import type { FactReader } from '../authorize/cached-facts.ts';
import type { PayloadVerification } from '../authorize/verify-payload.ts';

export interface AgentRequest {
  method: string;
  target_uri: string;
  headers: Record<string, string>;
  /** the body as the agent sent it (UTF-8 text); what `content-digest` must match */
  body?: string;
}

const MAX_HEADERS = 64;

/** Checks the shape of `agent_request` (400 naming the member); `at` is the pointer of the `agent_request` member. */
export function parseAgentRequest(value: unknown, at: string, pepUrls: readonly string[]): AgentRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw fieldError('invalid_request', at, 'must be an object');
  const v = value as Record<string, unknown>;
  if (pepUrls.length === 0) {
    throw fieldError(
      'invalid_request',
      at,
      'this deployment lists no PEP URLs (AAR_PEP_URLS): a forwarded agent request cannot verify',
    );
  }
  if (typeof v.method !== 'string' || !/^[A-Z]{1,16}$/.test(v.method)) {
    throw fieldError('invalid_request', `${at}/method`, 'must be an upper-case HTTP method');
  }
  if (typeof v.target_uri !== 'string')
    throw fieldError('invalid_request', `${at}/target_uri`, 'must be an absolute URL');
  let url: URL;
  try {
    url = new URL(v.target_uri);
  } catch {
    throw fieldError('invalid_request', `${at}/target_uri`, 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw fieldError('invalid_request', `${at}/target_uri`, 'must be an http(s) URL');
  if (typeof v.headers !== 'object' || v.headers === null || Array.isArray(v.headers)) {
    throw fieldError('invalid_request', `${at}/headers`, 'must be an object of header names to string values');
  }
  const entries = Object.entries(v.headers as Record<string, unknown>);
  if (entries.length > MAX_HEADERS)
    throw fieldError('invalid_request', `${at}/headers`, `at most ${MAX_HEADERS} headers`);
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, header] of entries) {
    if (typeof header !== 'string') throw fieldError('invalid_request', `${at}/headers/${name}`, 'must be a string');
    const lower = name.toLowerCase();
    if (lower in headers) throw fieldError('invalid_request', `${at}/headers/${name}`, 'is given twice');
    headers[lower] = header;
  }
  if (v.body !== undefined && typeof v.body !== 'string')
    throw fieldError('invalid_request', `${at}/body`, 'must be a string');
  return {
    method: v.method,
    target_uri: v.target_uri,
    headers: { ...headers },
    ...(v.body !== undefined ? { body: v.body as string } : {}),
  };
}

/** The `verifyAgentSignature` authorize takes (services/authorize/authorize.ts): no forwarded request is `missing`. */
export function agentRequestVerifier(ctx: AppContext, forwarded: AgentRequest | undefined) {
  return async (actorEntityId: string, facts: FactReader): Promise<PayloadVerification> => {
    if (forwarded === undefined) return { result: { status: 'missing', failure: 'missing_signature' } };
    const targetUris = pepTargetUris(ctx.config.pepUrls, forwarded.target_uri);
    const resolveKey = async (keyid: string): Promise<Ed25519PublicJwk | undefined> => {
      if (tryParseEntityId(keyid)?.id !== actorEntityId) return undefined;
      const row = await facts.entity(actorEntityId);
      if (!row?.public_key_jwk || row.state === 'tombstoned') return undefined;
      return JSON.parse(row.public_key_jwk) as Ed25519PublicJwk;
    };
    const now = Math.floor(ctx.clock.now().getTime() / 1000);
    const result = await verifyRequestSignature(
      {
        method: forwarded.method,
        url: targetUris[0] as string,
        headers: forwarded.headers,
        body: new TextEncoder().encode(forwarded.body ?? ''),
      },
      resolveKey,
      now,
      { windowSeconds: ctx.config.signatureWindowSeconds, ed25519Verify: nativeEd25519VerifyOffThread, targetUris },
    );
    if (result.status === 'valid' && result.keyid && result.nonce && result.created !== undefined) {
      return { result, nonce: { keyid: actorEntityId, nonce: result.nonce, created: result.created } };
    }
    return { result };
  };
}

/**
 * The `@target-uri` candidates: for each listed PEP base URL whose path the forwarded request's path lies under, that
 * base's origin + the forwarded path and query (the forwarded host is never used). None lies under one: each base +
 * the path, which no signature made for a listed gateway matches (the result is then `signature_mismatch`).
 */
export function pepTargetUris(pepUrls: readonly string[], targetUri: string): string[] {
  const target = new URL(targetUri);
  const path = `${target.pathname}${target.search}`;
  const bases = parsedBases(pepUrls);
  const under = bases.flatMap((base) => {
    const inside =
      base.prefix === '' || target.pathname === base.prefix || target.pathname.startsWith(`${base.prefix}/`);
    return inside ? [`${base.origin}${path}`] : [];
  });
  return under.length > 0 ? [...new Set(under)] : bases.map((base) => `${base.url}${path}`);
}

/** The configured bases parsed once per list (the configuration's array), not once per request. */
const parsed = new WeakMap<readonly string[], Array<{ url: string; origin: string; prefix: string }>>();

function parsedBases(pepUrls: readonly string[]): Array<{ url: string; origin: string; prefix: string }> {
  let bases = parsed.get(pepUrls);
  if (!bases) {
    bases = [...new Set(pepUrls)].slice(0, MAX_TARGET_URIS).map((url) => {
      const u = new URL(url);
      return { url, origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
    });
    parsed.set(pepUrls, bases);
  }
  return bases;
}
