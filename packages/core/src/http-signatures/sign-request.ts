/**
 * Signs an agent request (CONTRACT section 7): RFC 9421 with Ed25519 over `@method`, `@target-uri` and
 * `content-digest` (RFC 9530), parameters `created`, `nonce`, `keyid`, `alg="ed25519"`. Pure: the caller supplies
 * the time, the nonce and a signer holding the private key.
 */
import { AarError } from '../errors/aar-error.ts';
import { AGENT_REQUEST_COMPONENTS, DEFAULT_SIGNATURE_LABEL } from './agent-request-profile.ts';
import { utf8Encode } from '../encoding/utf8.ts';
import { contentDigest } from './content-digest.ts';
import type { HeaderSource, SignableRequest } from './http-request.ts';
import { bodyBytes } from './http-request.ts';
import { buildSignatureBase, serializeSignatureParams, toStructuredParams } from './signature-base.ts';
import { serializeKey } from './serialize-structured-field.ts';
import { encodeBase64 } from '../encoding/base64.ts';

/** Holds the Ed25519 private key; core only sees the 64-byte signature it returns. `keyId` is the agent's id. */
export interface RequestSigningKey {
  readonly keyId: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

export interface SignRequestOptions {
  /** unix seconds */
  created: number;
  /** unique per request within the freshness window; printable ASCII (the SDK uses 128 random bits, base64url) */
  nonce: string;
  /** covered components, in order; default AGENT_REQUEST_COMPONENTS */
  components?: readonly string[];
  /** unix seconds; omitted by default */
  expires?: number;
  /** default `sig1` */
  label?: string;
}

/** The three header fields to send with the request, by lowercase name (a type, so it spreads into any headers). */
export type RequestSignatureHeaders = {
  'content-digest': string;
  'signature-input': string;
  signature: string;
};

/** `headers` with `content-digest` replaced by `digest`, whatever the spelling of the existing name. */
function withDigest(headers: HeaderSource | undefined, digest: string): Record<string, string | readonly string[]> {
  const out: Record<string, string | readonly string[]> = {};
  if (headers !== undefined) {
    const entries: Iterable<[string, unknown]> =
      typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function'
        ? collectHeaders(headers as Headers)
        : Object.entries(headers);
    for (const [name, value] of entries) {
      if (value === undefined || name.toLowerCase() === 'content-digest') continue;
      out[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : String(value);
    }
  }
  out['content-digest'] = digest;
  return out;
}

function collectHeaders(headers: Headers): [string, string][] {
  const entries: [string, string][] = [];
  headers.forEach((value, name) => entries.push([name, value]));
  return entries;
}

/**
 * Signs `request`; returns the Content-Digest, Signature-Input and Signature fields to add to it. Throws
 * `invalid_request` for a component the request lacks, a nonce outside printable ASCII, or a bad time, and
 * `internal` if the key does not return a 64-byte signature.
 */
export async function signRequest(
  request: SignableRequest,
  key: RequestSigningKey,
  options: SignRequestOptions,
): Promise<RequestSignatureHeaders> {
  const label = serializeKey(options.label ?? DEFAULT_SIGNATURE_LABEL);
  if (typeof key.keyId !== 'string' || key.keyId.length === 0)
    throw new AarError('invalid_request', 'a key id is required');
  if (typeof options.nonce !== 'string' || options.nonce.length === 0) {
    throw new AarError('invalid_request', 'a nonce is required');
  }
  const components = options.components ?? AGENT_REQUEST_COMPONENTS;
  const params = toStructuredParams({
    created: options.created,
    ...(options.expires === undefined ? {} : { expires: options.expires }),
    nonce: options.nonce,
    keyid: key.keyId,
    alg: 'ed25519',
  });
  if (!params.has('created')) throw new AarError('invalid_request', '`created` must be unix seconds');

  const digest = contentDigest(bodyBytes(request.body));
  const signed: SignableRequest = { ...request, headers: withDigest(request.headers, digest) };
  const result = buildSignatureBase(components, signed, params);
  if ('failure' in result) {
    throw new AarError('invalid_request', `component \`${result.component}\`: ${result.failure.replaceAll('_', ' ')}`);
  }
  const signature = await key.sign(utf8Encode(result.base));
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    throw new AarError('internal', 'the key did not return a 64-byte ed25519 signature');
  }
  return {
    'content-digest': digest,
    'signature-input': `${label}=${serializeSignatureParams(components, params)}`,
    signature: `${label}=:${encodeBase64(signature)}:`,
  };
}
