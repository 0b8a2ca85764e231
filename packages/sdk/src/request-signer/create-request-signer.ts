/**
 * The agent's request signer (CONTRACT section 7): two lines to sign a call to `POST /v1/runtime/authorize`.
 *   const signer = createRequestSigner({ keyId: 'ns:entity:agent:shopper-1', privateJwk });
 *   const headers = await signer.sign({ method: 'POST', url, body });
 * Unlike core, the SDK reads the clock (`created`) and draws the nonce (128 bits from crypto.getRandomValues).
 * INVARIANT: the body passed here must be the exact bytes sent; re-serializing JSON afterwards breaks the digest.
 */
import type { HeaderSource, RequestSignatureHeaders } from '@aar/core';
import { AarError, encodeBase64Url, signRequest } from '@aar/core';
import type { Ed25519PrivateJwk, RequestSignerPrivateKey } from './import-signing-key.ts';
import { prepareSigningKey } from './import-signing-key.ts';

interface RequestSignerBaseOptions {
  /** the `keyid` parameter: the agent's entity id, e.g. `ns:entity:agent:shopper-1` */
  keyId: string;
  /** unix seconds; default the system clock */
  now?: () => number;
  /** covered components; default `@method`, `@target-uri`, `content-digest` (what the service requires) */
  components?: readonly string[];
}

export type CreateRequestSignerOptions = RequestSignerBaseOptions &
  ({ privateKey: RequestSignerPrivateKey; privateJwk?: never } | { privateJwk: Ed25519PrivateJwk; privateKey?: never });

export interface RequestToSign {
  method: string;
  url: string | URL;
  /** the exact body to send (a string is sent as UTF-8) */
  body?: string | Uint8Array;
  /** other headers; only those named in `components` are signed */
  headers?: HeaderSource;
}

export interface RequestSigner {
  readonly keyId: string;
  /** The `content-digest`, `signature-input` and `signature` headers to add to the request. */
  sign(request: RequestToSign): Promise<RequestSignatureHeaders>;
}

const NONCE_BYTES = 16;
/** Methods that fetch() uppercases before sending (Fetch standard, "normalize a method"). */
const NORMALIZED_METHODS: ReadonlySet<string> = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

function systemNow(): number {
  return Math.floor(Date.now() / 1000);
}

function normalizeMethod(method: string): string {
  const upper = method.toUpperCase();
  return NORMALIZED_METHODS.has(upper) ? upper : method;
}

/** Creates a signer; throws `invalid_request` at once if the key id or key is unusable. */
export function createRequestSigner(options: CreateRequestSignerOptions): RequestSigner {
  const { keyId } = options;
  if (typeof keyId !== 'string' || keyId.length === 0) throw new AarError('invalid_request', 'a key id is required');
  const key = options.privateKey ?? options.privateJwk;
  if (key === undefined) throw new AarError('invalid_request', 'a private key is required');
  const loadKey = prepareSigningKey(key);
  const now = options.now ?? systemNow;
  const signingKey = {
    keyId,
    async sign(message: Uint8Array): Promise<Uint8Array> {
      const cryptoKey = await loadKey();
      return new Uint8Array(
        await globalThis.crypto.subtle.sign({ name: 'Ed25519' }, cryptoKey, new Uint8Array(message)),
      );
    },
  };
  return {
    keyId,
    async sign(request: RequestToSign): Promise<RequestSignatureHeaders> {
      const nonce = encodeBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES)));
      return signRequest(
        {
          method: normalizeMethod(request.method),
          url: String(request.url),
          headers: request.headers,
          body: request.body,
        },
        signingKey,
        { created: Math.floor(now()), nonce, ...(options.components ? { components: options.components } : {}) },
      );
    },
  };
}
