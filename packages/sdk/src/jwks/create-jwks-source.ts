/**
 * The issuer's JWKS (`GET /.well-known/jwks.json`), fetched once and cached: the trusted keys for every offline
 * verifier. A key id the cached set does not know triggers one refetch, at most once every `refetchIntervalSeconds`
 * (a key the service rotated in appears; a forged key id cannot make the client fetch on an attacker's schedule), and
 * concurrent lookups share one fetch.
 * Attacker assumptions: the set comes over the network from the URL the caller configured and no other (a message
 * never names where keys come from, and a redirect is an error, never followed); every key is parsed as an Ed25519
 * public JWK, private or malformed keys are dropped, and a kid published twice is ambiguous and trusted for neither
 * (verifyDocument's rule).
 * A failed fetch throws (AarApiError / AarNetworkError): an unreachable issuer is not a verdict on a signature.
 */
import { parsePublicEd25519Jwk, resolveJwksUrl, type Ed25519PublicJwk, type JwksLocation, type Jwks } from '@aar/core';
import { AarApiError, AarNetworkError } from '../client/errors.ts';

export interface JwksSourceOptions {
  fetch?: typeof globalThis.fetch;
  /** the least time between two fetches caused by unknown key ids (default 300) */
  refetchIntervalSeconds?: number;
  /** milliseconds since the epoch (default Date.now) */
  now?: () => number;
  /** one fetch's time limit (default 10000) */
  timeoutMs?: number;
}

export interface JwksSource {
  readonly url: string;
  /** the cached set, fetched on first use */
  get(): Promise<Jwks>;
  /** the key under `kid`, refetching the set once (rate-limited) when it is not known; undefined if still unknown */
  getKey(kid: string): Promise<Ed25519PublicJwk | undefined>;
  /** the set, after making sure each of `kids` was looked for (one refetch at most): pass it to a verifier */
  trustedKeysFor(kids: Iterable<string>): Promise<Jwks>;
  /** fetches now, whatever the interval (after a key rotation the caller knows of) */
  refresh(): Promise<Jwks>;
  /** how many times the set was fetched */
  readonly fetchCount: number;
}

const MAX_JWKS_BYTES = 1 << 20;

export function isJwksSource(value: unknown): value is JwksSource {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as JwksSource).trustedKeysFor === 'function' &&
    typeof (value as JwksSource).getKey === 'function'
  );
}

/** Keeps the well-formed Ed25519 public keys that carry a kid; drops the rest (never throws on hostile content). */
export function readJwks(value: unknown): Jwks {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== 'object' || value === null || !Array.isArray(keys)) {
    throw new TypeError('the issuer did not answer a `{ keys: [...] }` document');
  }
  const out: Ed25519PublicJwk[] = [];
  for (const key of keys) {
    try {
      const jwk = parsePublicEd25519Jwk(key, '');
      if (jwk.kid !== undefined) out.push(jwk);
    } catch {
      // not an Ed25519 public key: not one we can trust
    }
  }
  return { keys: out };
}

/**
 * `location`: a JWKS URL (`https://aar.example/.well-known/jwks.json`), an issuer URL (`https://aar.example`), or
 * either named explicitly (`{ jwksUrl }`, `{ issuerUrl }`): see resolveJwksUrl.
 */
export function createJwksSource(location: JwksLocation, options: JwksSourceOptions = {}): JwksSource {
  const href = resolveJwksUrl(location);
  const fetchFn = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const intervalMs = (options.refetchIntervalSeconds ?? 300) * 1000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let cached: Jwks | undefined;
  let lastFetchAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<Jwks> | undefined;
  let fetchCount = 0;

  const download = async (): Promise<Jwks> => {
    const path = new URL(href).pathname;
    let response: Response;
    let text: string;
    try {
      response = await fetchFn(href, {
        headers: { accept: 'application/json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new AarNetworkError('GET', path, 1, error, error instanceof DOMException && error.name === 'TimeoutError');
    }
    if (response.status !== 200 || text.length > MAX_JWKS_BYTES) {
      throw new AarApiError({
        method: 'GET',
        path,
        status: response.status,
        problem: { code: response.status === 200 ? 'jwks_too_large' : `http_${response.status}` },
        attempts: 1,
      });
    }
    return readJwks(JSON.parse(text));
  };

  const fetchNow = (): Promise<Jwks> => {
    inFlight ??= (async () => {
      lastFetchAt = now();
      try {
        cached = await download();
        fetchCount += 1;
        return cached;
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  const find = (jwks: Jwks, kid: string): Ed25519PublicJwk | undefined => {
    const matches = jwks.keys.filter((key) => key.kid === kid);
    return matches.length === 1 ? matches[0] : undefined;
  };
  const known = (jwks: Jwks, kid: string): boolean => jwks.keys.some((key) => key.kid === kid);

  const get = async (): Promise<Jwks> => cached ?? (await (inFlight ?? fetchNow()));

  const ensure = async (kids: string[]): Promise<Jwks> => {
    const jwks = await get();
    if (kids.every((kid) => known(jwks, kid))) return jwks;
    if (inFlight) return inFlight;
    if (now() - lastFetchAt < intervalMs) return jwks;
    return fetchNow();
  };

  return {
    url: href,
    get,
    async getKey(kid) {
      return find(await ensure([kid]), kid);
    },
    trustedKeysFor(kids) {
      return ensure([...kids]);
    },
    refresh: fetchNow,
    get fetchCount() {
      return fetchCount;
    },
  };
}
