/**
 * Verifies the RFC 9421 signature of an agent request (CONTRACT section 7; SECURITY.md "Signatures", "Freshness").
 * Attacker assumptions and defences:
 * - Signature-Input, Signature, Content-Digest, the URL and the body are hostile: every malformed structure is an
 *   `invalid` result, never an exception; duplicate keys are malformed, not "last one wins".
 * - The attacker picks the covered components: they must include every required one, so a signature over `@method`
 *   alone cannot authorize a body.
 * - The attacker picks `keyid` and `alg`: the key comes only from `resolveKey` (exact `keyid`, nothing fetched), the
 *   algorithm is the key's (Ed25519) and `alg`, when present, must say exactly `ed25519`.
 * - The attacker picks `created`, `expires` and `nonce`: they must be well-typed RFC 8941 values, and time is judged
 *   against the caller's `now` in whole seconds, symmetrically and inclusively (|now - created| <= window is
 *   fresh). Replay is judged by the caller, who remembers the returned nonce.
 * - The attacker controls the Host and X-Forwarded-* headers: a server passes `targetUris` built from its own
 *   configured public base URLs and the received path, so a signature made for another deployment never verifies.
 *   Each candidate costs one base and one Ed25519 verification, and there are never more than the caller gave.
 * Order: structure, parameters, key, digest, signature, then time. So `stale` always means "authentic, but outside
 * the window", and `keyid`, `created` and `nonce` in the result are authenticated exactly when the status is
 * `valid` or `stale`.
 */
import { AarError } from '../errors/aar-error.ts';
import { tryDecodeBase64Url } from '../encoding/base64url.ts';
import { utf8Encode } from '../encoding/utf8.ts';
import type { Ed25519PublicJwk } from '../signing/ed25519-jwk.ts';
import { parsePublicEd25519Jwk } from '../signing/ed25519-jwk.ts';
import { ed25519Verify } from '../signing/ed25519.ts';
import { AGENT_REQUEST_COMPONENTS, DEFAULT_SIGNATURE_WINDOW_SECONDS } from './agent-request-profile.ts';
import { verifyContentDigest } from './content-digest.ts';
import type { SignableRequest } from './http-request.ts';
import { headerValue } from './http-request.ts';
import { parseDictionary } from './parse-structured-field.ts';
import type { ParsedSignature } from './read-signature.ts';
import { readSignature } from './read-signature.ts';
import type { RequestSignatureResult } from './request-signature-result.ts';
import type { SignatureBaseFailure } from './signature-base.ts';
import { buildSignatureBase } from './signature-base.ts';
import { componentValue } from './component-value.ts';

const MAX_TIMESTAMP = 999_999_999_999_999;

/** Strict Ed25519 verification (32-byte key, 64-byte signature, S < L); never throws. */
export type Ed25519VerifyFn = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => Promise<boolean>;

export interface VerifyRequestSignatureOptions {
  /**
   * the Ed25519 implementation; default core's WebCrypto one. A server may pass a native one (Node's WebCrypto runs
   * Ed25519 on the main thread at several times the cost of node:crypto); it must pass the same Wycheproof vectors.
   */
  ed25519Verify?: Ed25519VerifyFn;
  /** |now - created| <= window is fresh; default 300 */
  windowSeconds?: number;
  /** components every signature must cover; default AGENT_REQUEST_COMPONENTS */
  requiredComponents?: readonly string[];
  /**
   * The absolute URLs the request may have been signed for (a server's public base URLs joined with the path and
   * query it received), tried in order in place of `request.url`; the signature verifies if it verifies for one.
   * Absent: `request.url` alone. At most MAX_TARGET_URIS.
   */
  targetUris?: readonly string[];
}

/** A bound on `targetUris`: candidates come from configuration, never from the request. */
export const MAX_TARGET_URIS = 16;

/** Looks up the registered key for `keyid` (the agent's entity id) among keys the caller trusts; never fetches. */
export type RequestKeyResolver = (
  keyid: string,
) => Ed25519PublicJwk | undefined | Promise<Ed25519PublicJwk | undefined>;

function checkOptions(
  request: SignableRequest,
  now: number,
  options: VerifyRequestSignatureOptions,
): { window: number; required: readonly string[]; urls: readonly string[] } {
  const window = options.windowSeconds ?? DEFAULT_SIGNATURE_WINDOW_SECONDS;
  const required = options.requiredComponents ?? AGENT_REQUEST_COMPONENTS;
  const urls = options.targetUris ?? [request.url];
  if (!Number.isFinite(now) || now < 0 || now > MAX_TIMESTAMP) {
    throw new AarError('internal', '`now` must be unix seconds');
  }
  if (!Number.isSafeInteger(window) || window < 0) throw new AarError('internal', 'the window must be whole seconds');
  if (!Array.isArray(required) || required.some((name) => typeof name !== 'string')) {
    throw new AarError('internal', 'required components must be a list of names');
  }
  if (!Array.isArray(urls) || urls.length < 1 || urls.length > MAX_TARGET_URIS) {
    throw new AarError('internal', `target uris must be a list of 1 to ${MAX_TARGET_URIS} urls`);
  }
  return { window, required, urls };
}

/** The `@target-uri` a signature base holds for `url` (its WHATWG serialization); `url` itself when it has none. */
function targetUriOf(url: unknown): string {
  const value = componentValue('@target-uri', { method: 'GET', url: url as string });
  return 'value' in value ? value.value : String(url);
}

/**
 * Verifies the request's RFC 9421 signature. `now` is unix seconds from the verifier's clock. Throws only for
 * invalid options (`internal`) or when `resolveKey` itself throws (a store failure is not a verdict); every property
 * of the request yields a result.
 */
export async function verifyRequestSignature(
  request: SignableRequest,
  resolveKey: RequestKeyResolver,
  now: number,
  options: VerifyRequestSignatureOptions = {},
): Promise<RequestSignatureResult> {
  const { window, required, urls } = checkOptions(request, now, options);
  // Freshness is judged in whole seconds: a fractional clock reading never makes `created = now - window` stale.
  const nowSeconds = Math.floor(now);
  let parsed: ParsedSignature;
  try {
    const inputField = headerValue(request.headers, 'signature-input');
    const signatureField = headerValue(request.headers, 'signature');
    if (inputField === undefined && signatureField === undefined) {
      return { status: 'missing', failure: 'missing_signature' };
    }
    const inputs = parseDictionary(inputField ?? '');
    if (inputs === undefined) return { status: 'invalid', failure: 'malformed_signature_input' };
    const signatures = parseDictionary(signatureField ?? '');
    if (signatures === undefined) return { status: 'invalid', failure: 'malformed_signature' };
    const step = readSignature(inputs, signatures, required);
    if (!step.ok) return step.result;
    parsed = step.value;
  } catch {
    // Only hostile header objects (throwing getters, proxies) get here.
    return { status: 'invalid', failure: 'malformed_signature_input' };
  }
  const targetUris = urls.map(targetUriOf);
  const known: RequestSignatureResult = {
    status: 'invalid',
    label: parsed.label,
    keyid: parsed.keyid,
    created: parsed.created,
    nonce: parsed.nonce,
    components: parsed.components,
    targetUris,
  };

  const jwk = await resolveKey(parsed.keyid);
  if (jwk === undefined || jwk === null) return { ...known, failure: 'unknown_key' };
  let publicKey: Uint8Array | undefined;
  try {
    publicKey = tryDecodeBase64Url(parsePublicEd25519Jwk(jwk, '').x);
  } catch {
    publicKey = undefined;
  }
  if (publicKey === undefined) return { ...known, failure: 'invalid_key' };

  // One base per candidate URL; a candidate whose base cannot be built is skipped, its failure kept for the result.
  const messages: { url: string; message: Uint8Array }[] = [];
  let baseFailure: { failure: SignatureBaseFailure; component: string } | undefined;
  try {
    for (const url of urls) {
      const built = buildSignatureBase(parsed.components, { ...request, url }, parsed.params);
      if ('failure' in built) baseFailure ??= built;
      else messages.push({ url, message: utf8Encode(built.base) });
    }
    if (messages.length === 0 && baseFailure) {
      return { ...known, failure: baseFailure.failure, component: baseFailure.component };
    }
    if (parsed.components.includes('content-digest')) {
      const digest = verifyContentDigest(headerValue(request.headers, 'content-digest'), request.body ?? '');
      if (!digest.valid) return { ...known, failure: digest.failure ?? 'digest_mismatch' };
    }
  } catch {
    return { ...known, failure: 'invalid_component_value' };
  }
  const verifyEd25519 = options.ed25519Verify ?? ed25519Verify;
  let matched: string | undefined;
  for (const candidate of messages) {
    if (await verifyEd25519(publicKey, candidate.message, parsed.signature)) {
      matched = targetUriOf(candidate.url);
      break;
    }
  }
  if (matched === undefined) return { ...known, failure: 'signature_mismatch' };
  const verified: RequestSignatureResult = { ...known, targetUris: [matched] };

  if (parsed.expires !== undefined && parsed.expires <= nowSeconds) {
    return { ...verified, status: 'stale', failure: 'expired' };
  }
  if (parsed.created - nowSeconds > window) return { ...verified, status: 'stale', failure: 'created_in_future' };
  if (nowSeconds - parsed.created > window) return { ...verified, status: 'stale', failure: 'too_old' };
  const { status: _status, ...facts } = verified;
  return { ...facts, status: 'valid' };
}
