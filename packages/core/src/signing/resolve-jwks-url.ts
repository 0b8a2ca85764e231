/**
 * Where a key source fetches the issuer's JWKS, from what the caller named: the SDKs' key sources and the aar CLI's
 * offline verifiers. The same rule in the TypeScript, Python
 * (`resolve_jwks_url`) and Go (`ResolveJWKSURL`) SDKs, pinned by the same cases in each:
 *
 * - `{ jwksUrl }`: that URL, as is.
 * - `{ issuerUrl }`: the issuer's base URL (a path prefix allowed); the JWKS is `<issuer>/.well-known/jwks.json`
 *   (trailing `/` of the issuer ignored), as the service publishes it (`AAR_ISSUER_URL`).
 * - a bare URL: a JWKS URL when its path ends in `/jwks.json`, otherwise an issuer URL.
 *
 * Only http and https; no credentials in the URL; no fragment; an issuer URL has no query (where the query would
 * go is ambiguous). Attacker assumption: none here: the URL is the caller's configuration, and the SDK never
 * fetches keys from anywhere else (a document never names where its keys come from).
 */
import { AarError } from '../errors/aar-error.ts';

export type JwksLocation = string | URL | { jwksUrl: string | URL } | { issuerUrl: string | URL };

const WELL_KNOWN_JWKS = '/.well-known/jwks.json';

function parse(value: string | URL, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AarError('invalid_request', `the ${what} must be an absolute http(s) url`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AarError('invalid_request', `the ${what} must be an http or https url`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new AarError('invalid_request', `the ${what} must not carry credentials`);
  }
  if (url.hash !== '' || String(value).includes('#')) {
    throw new AarError('invalid_request', `the ${what} must not have a fragment`);
  }
  return url;
}

function fromIssuer(issuer: string | URL): string {
  const url = parse(issuer, 'issuer url');
  if (url.search !== '' || String(issuer).includes('?')) {
    throw new AarError('invalid_request', 'the issuer url must not have a query');
  }
  url.pathname = url.pathname.replace(/\/+$/, '') + WELL_KNOWN_JWKS;
  return url.toString();
}

/** Whether a bare URL names the JWKS itself (its path ends in `/jwks.json`) rather than an issuer. */
export function isJwksDocumentUrl(url: string | URL): boolean {
  return parse(url, 'key source url').pathname.endsWith('/jwks.json');
}

/** The JWKS URL a key source fetches; throws `invalid_request` for a URL it will not use. */
export function resolveJwksUrl(location: JwksLocation): string {
  if (typeof location === 'object' && !(location instanceof URL)) {
    if ('jwksUrl' in location) return parse(location.jwksUrl, 'jwks url').toString();
    if ('issuerUrl' in location) return fromIssuer(location.issuerUrl);
    throw new AarError('invalid_request', 'name the keys with a url, `{ jwksUrl }` or `{ issuerUrl }`');
  }
  return isJwksDocumentUrl(location) ? parse(location, 'jwks url').toString() : fromIssuer(location);
}
