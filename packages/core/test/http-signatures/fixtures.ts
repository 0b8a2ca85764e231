/** Keys and requests shared by the http-signatures tests. */
import { encodeBase64 } from '../../src/encoding/base64.ts';
import { toEd25519PublicJwk } from '../../src/signing/ed25519-jwk.ts';
import type { Ed25519PublicJwk } from '../../src/signing/ed25519-jwk.ts';
import { contentDigest } from '../../src/http-signatures/content-digest.ts';
import type { SignableRequest } from '../../src/http-signatures/http-request.ts';
import type { RequestSigningKey } from '../../src/http-signatures/sign-request.ts';
import { signatureBase } from '../../src/http-signatures/signature-base.ts';

export const AGENT = 'ns:entity:agent:shopper-1';
export const OTHER_AGENT = 'ns:entity:agent:other-7';
export const NOW = 1_750_000_000;
export const TARGET = 'https://aar.example/v1/runtime/authorize';
export const BODY = '{"subject":"ns:capability:payment_action:card_purchase","resource":{"amount":12.5}}';

export interface TestKey {
  jwk: Ed25519PublicJwk;
  signer: RequestSigningKey;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

export async function makeKey(keyId: string): Promise<TestKey> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  const sign = async (message: Uint8Array): Promise<Uint8Array> =>
    new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, new Uint8Array(message)));
  return { jwk: toEd25519PublicJwk(raw), signer: { keyId, sign }, sign };
}

/** The agent's request before signing: its own Content-Digest is added by the signer. */
export function plainRequest(overrides: Partial<SignableRequest> = {}): SignableRequest {
  return { method: 'POST', url: TARGET, headers: { 'content-type': 'application/json' }, body: BODY, ...overrides };
}

/**
 * A request whose Signature-Input is the raw text `innerList` under `label`, signed correctly over the base that
 * text implies: whatever the verifier refuses, it refuses for what the text says, not for a bad signature.
 */
export async function signRaw(
  key: TestKey,
  innerList: string,
  components: readonly string[],
  options: { label?: string; request?: SignableRequest } = {},
): Promise<SignableRequest> {
  const label = options.label ?? 'sig1';
  const request = options.request ?? plainRequest();
  const headers = { ...(request.headers as Record<string, string>), 'content-digest': contentDigest(BODY) };
  const withDigest = { ...request, headers };
  const full = signatureBase(components, withDigest, {});
  const base = `${full.slice(0, full.lastIndexOf('"@signature-params": '))}"@signature-params": ${innerList}`;
  const signature = await key.sign(new TextEncoder().encode(base));
  return {
    ...withDigest,
    headers: {
      ...headers,
      'signature-input': `${label}=${innerList}`,
      signature: `${label}=:${encodeBase64(signature)}:`,
    },
  };
}
