/**
 * Values of covered components (RFC 9421 sections 2.1 and 2.2). Supported: the derived components `@method`,
 * `@target-uri`, `@authority`, `@scheme`, `@path`, `@query`, and HTTP fields by lowercase name, without component
 * parameters (`;sf`, `;key`, `;bs`, `;req`, `;tr`, `;name` are refused: an unsupported parameter must never be
 * silently ignored, or two parties would sign different bases).
 * Attacker assumption: field values may carry CR, LF or other controls meant to forge extra lines in the signature
 * base; any value outside visible ASCII, space and tab is refused rather than escaped.
 * URL-derived values come from the WHATWG URL serialization on both sides (lowercase host, default port dropped,
 * dot segments resolved), so spelling differences of one URL cannot break an honest signature.
 */
import type { SignableRequest } from './http-request.ts';
import { headerLines } from './http-request.ts';

export const DERIVED_COMPONENTS: readonly string[] = [
  '@method',
  '@target-uri',
  '@authority',
  '@scheme',
  '@path',
  '@query',
];

export type ComponentFailure = 'unsupported_component' | 'component_absent' | 'invalid_component_value';

export type ComponentValueResult = { value: string } | { failure: ComponentFailure };

const FIELD_NAME = /^[a-z0-9!#$%&'*+\-.^_`|~]+$/;
const METHOD = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;
const SAFE_VALUE = /^[\t\x20-\x7e]*$/;
const OBS_FOLD = /\r\n[ \t]+/g;
const OWS_EDGES = /^[ \t]+|[ \t]+$/g;

/** True for a component name this module can produce a value for. */
export function isSupportedComponent(name: string): boolean {
  return DERIVED_COMPONENTS.includes(name) || (FIELD_NAME.test(name) && !name.startsWith('@'));
}

/** The parts of a target URI the derived components read (strings: a cached URL object could be mutated). */
interface TargetUri {
  href: string;
  host: string;
  protocol: string;
  pathname: string;
  search: string;
}

/**
 * Parsed target URIs by the exact text given: one request's signature base, its candidate URLs and its result parse
 * the same text several times, and a server sees the same few URLs over and over. Bounded: past the limit it starts
 * over (and long URLs are not kept), so hostile URLs cost a parse each, never memory.
 */
const TARGET_URIS = new Map<string, TargetUri | null>();
const TARGET_URIS_LIMIT = 256;
const TARGET_URI_CACHED_LENGTH = 2048;

function parseTargetUri(url: string): TargetUri | undefined {
  let parsed = TARGET_URIS.get(url);
  if (parsed === undefined) {
    parsed = parseTargetUriUncached(url);
    if (url.length > TARGET_URI_CACHED_LENGTH) return parsed ?? undefined;
    if (TARGET_URIS.size >= TARGET_URIS_LIMIT) TARGET_URIS.clear();
    TARGET_URIS.set(url, parsed);
  }
  return parsed ?? undefined;
}

function parseTargetUriUncached(url: string): TargetUri | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  // Userinfo is not part of a target URI (RFC 9110 section 4.2.4); a URL carrying it is refused, not stripped.
  if (parsed.username !== '' || parsed.password !== '') return null;
  parsed.hash = '';
  const { href, host, protocol, pathname, search } = parsed;
  return { href, host, protocol, pathname, search };
}

function derivedValue(name: string, request: SignableRequest): ComponentValueResult {
  if (name === '@method') {
    return typeof request.method === 'string' && METHOD.test(request.method)
      ? { value: request.method }
      : { failure: 'invalid_component_value' };
  }
  const url = typeof request.url === 'string' ? parseTargetUri(request.url) : undefined;
  if (url === undefined) return { failure: 'invalid_component_value' };
  switch (name) {
    case '@target-uri':
      return { value: url.href };
    case '@authority':
      return { value: url.host };
    case '@scheme':
      return { value: url.protocol.slice(0, -1) };
    case '@path':
      return { value: url.pathname === '' ? '/' : url.pathname };
    case '@query':
      // An absent or empty query is the lone `?` (RFC 9421 section 2.2.7).
      return { value: `?${url.search.slice(1)}` };
    default:
      return { failure: 'unsupported_component' };
  }
}

function fieldValue(name: string, request: SignableRequest): ComponentValueResult {
  const lines = headerLines(request.headers, name);
  if (lines === undefined) return { failure: 'component_absent' };
  const value = lines.map((line) => line.replace(OBS_FOLD, ' ').replace(OWS_EDGES, '')).join(', ');
  return SAFE_VALUE.test(value) ? { value } : { failure: 'invalid_component_value' };
}

/** The value of one covered component of `request`, or why there is none. Never throws. */
export function componentValue(name: string, request: SignableRequest): ComponentValueResult {
  if (!isSupportedComponent(name)) return { failure: 'unsupported_component' };
  return name.startsWith('@') ? derivedValue(name, request) : fieldValue(name, request);
}
