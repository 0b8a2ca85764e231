/**
 * A JWS (RFC 7515) signed with EdDSA / Ed25519 (RFC 8037) by the service key, in both serialisations. Built here
 * rather than with jose's signers because the private key never leaves the key ring (keys/key-ring.ts signs bytes;
 * it hands out no key object): the signing input is `BASE64URL(protected) '.' BASE64URL(payload)`, exactly RFC 7515
 * section 5.1, and what we emit is checked with jose's verifiers (an implementation we did not write) in the tests.
 */
import { encodeBase64Url, utf8Encode } from '@aar/core';
import type { ServiceSigner } from '../../keys/key-ring.ts';

export interface JwsSerialisations {
  /** RFC 7515 section 7.1 */
  compact: string;
  /** RFC 7515 section 7.2.2, flattened JSON serialisation */
  json: { protected: string; payload: string; signature: string };
}

export function jwsFromCompact(compact: string): JwsSerialisations {
  const [protectedPart = '', payload = '', signature = ''] = compact.split('.');
  return { compact, json: { protected: protectedPart, payload, signature } };
}

export async function signJws(
  payload: unknown,
  header: Record<string, unknown>,
  signer: ServiceSigner,
): Promise<JwsSerialisations> {
  // alg and kid are ours, never the caller's: the key we sign with decides them
  const protectedHeader = encodeBase64Url(utf8Encode(JSON.stringify({ ...header, alg: 'EdDSA', kid: signer.keyId })));
  const body = encodeBase64Url(utf8Encode(JSON.stringify(payload)));
  const signature = await signer.sign(utf8Encode(`${protectedHeader}.${body}`));
  return jwsFromCompact(`${protectedHeader}.${body}.${encodeBase64Url(signature)}`);
}
