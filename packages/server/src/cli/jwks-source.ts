/**
 * Where `aar verify-pack` gets the issuer's JWKS: a file, or a URL fetched once and cached in a file (SPEC
 * "Authentication" 6: verifiers fetch the JWKS once and cache it). The cache is refreshed only when a pack names a
 * key id the cached set lacks (a key rotated in since), at most once per run.
 * Attacker assumption: the URL's answer is untrusted bytes; it must be a JWKS of Ed25519 public keys, at most 1 MiB,
 * fetched without following redirects. Invalid keys are dropped, so a verification naming them fails as unknown.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parsePublicEd25519Jwk, resolveJwksUrl, type Ed25519PublicJwk, type Jwks } from '@aar/core';

const MAX_JWKS_BYTES = 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

export interface JwksSourceOptions {
  /** cache file for a URL source; default `~/.cache/aar/jwks-<sha256(url)>.json` */
  cacheFile?: string | undefined;
  /** key ids the caller needs: a cached set missing one is fetched again */
  keyIds?: readonly string[];
}

export interface LoadedJwks {
  jwks: Jwks;
  /** `file`, `cache` or `fetched` */
  from: 'file' | 'cache' | 'fetched';
}

export function isJwksUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

export function defaultJwksCacheFile(url: string): string {
  const digest = createHash('sha256').update(url, 'utf8').digest('hex').slice(0, 32);
  return join(homedir(), '.cache', 'aar', `jwks-${digest}.json`);
}

export async function loadJwks(source: string, options: JwksSourceOptions = {}): Promise<LoadedJwks> {
  if (!isJwksUrl(source)) return { jwks: toJwks(JSON.parse(readFileSync(source, 'utf8'))), from: 'file' };
  // the SDKs' rule: a URL whose path ends in /jwks.json is the JWKS, any other the issuer (its /.well-known/jwks.json)
  const url = resolveJwksUrl(source);
  const cacheFile = options.cacheFile ?? defaultJwksCacheFile(url);
  const cached = readCache(cacheFile);
  const needed = options.keyIds ?? [];
  if (cached && needed.every((kid) => cached.keys.some((k) => k.kid === kid))) return { jwks: cached, from: 'cache' };
  const fetched = await fetchJwks(url);
  mkdirSync(dirname(cacheFile), { recursive: true });
  writeFileSync(cacheFile, `${JSON.stringify(fetched, null, 2)}\n`);
  return { jwks: fetched, from: 'fetched' };
}

function readCache(file: string): Jwks | undefined {
  try {
    return toJwks(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
}

async function fetchJwks(url: string): Promise<Jwks> {
  const response = await fetch(url, {
    redirect: 'error',
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    headers: { accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`the JWKS at \`${url}\` answered ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_JWKS_BYTES) throw new Error(`the JWKS at \`${url}\` is larger than 1 MiB`);
  return toJwks(JSON.parse(text));
}

/** Keeps the valid Ed25519 public keys of a `{ keys: [...] }` document; throws when it is not one. */
export function toJwks(value: unknown): Jwks {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('not a JWKS: `keys` must be an array');
  const valid: Ed25519PublicJwk[] = [];
  for (const key of keys) {
    try {
      valid.push(parsePublicEd25519Jwk(key, ''));
    } catch {
      // dropped: a document naming this key id then fails as `unknown_key`
    }
  }
  return { keys: valid };
}
