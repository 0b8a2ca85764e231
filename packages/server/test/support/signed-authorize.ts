/**
 * A signed `POST /v1/runtime/authorize` whose bytes the test controls: sign once and deliver many times (replays),
 * or sign for one public origin (AAR_PUBLIC_URL) and deliver to any instance behind it. Written on node:http rather
 * than fetch because fetch drops a caller's Host header, and tests prove the service ignores it: the signed
 * `@target-uri` is checked against the configured public URLs, never against the Host it was reached by.
 */
import { request } from 'node:http';
import type { RequestSigner } from '@aar/sdk';
import type { CallResult } from './purchase-world.ts';

export const AUTHORIZE_PATH = '/v1/runtime/authorize';

export interface SignedAuthorize {
  /** the exact body bytes that were signed */
  text: string;
  headers: Record<string, string>;
}

export interface DeliverOptions {
  /** the instance to connect to, e.g. `http://127.0.0.1:4312` */
  to: string;
  runtimeToken: string;
  /** the Host header to send; default the host of `to` */
  host?: string;
  /** the request-target to send; default AUTHORIZE_PATH */
  path?: string;
  /** further headers (X-Forwarded-Host, say), sent after the signature's */
  headers?: Record<string, string>;
}

/** Signs an authorize body for `origin` (scheme and authority, no path), with a fresh nonce. */
export async function signAuthorize(signer: RequestSigner, origin: string, body: unknown): Promise<SignedAuthorize> {
  const text = JSON.stringify(body);
  const headers = await signer.sign({ method: 'POST', url: `${origin}${AUTHORIZE_PATH}`, body: text });
  return { text, headers: { ...headers } };
}

/** Sends a signed authorize as is; the same SignedAuthorize can be sent any number of times. */
export function deliverAuthorize(signed: SignedAuthorize, options: DeliverOptions): Promise<CallResult> {
  const target = new URL(options.path ?? AUTHORIZE_PATH, options.to);
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        headers: {
          host: options.host ?? target.host,
          authorization: `Bearer ${options.runtimeToken}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(signed.text)),
          ...signed.headers,
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') headers.set(name, value);
            else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
          }
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers });
          } catch (error) {
            reject(
              new Error(`authorize answered ${res.statusCode} with non-json: ${text.slice(0, 200)}`, { cause: error }),
            );
          }
        });
      },
    );
    req.on('error', reject);
    req.end(signed.text);
  });
}
