/**
 * Ed25519 verification with node:crypto for the hot path (agent request signatures): the same strictness as core's
 * WebCrypto verifier (32-byte key, 64-byte signature, S < L), at a fraction of the cost on Node 20, whose WebCrypto
 * runs Ed25519 jobs on the main thread. Pinned to the Wycheproof vectors by test/crypto/native-ed25519.test.ts.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { isCanonicalScalar, type Ed25519VerifyFn } from '@aar/core';

/** SubjectPublicKeyInfo prefix of an Ed25519 key (RFC 8410): 12 bytes, then the 32 key bytes. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const KEYS = new Map<string, KeyObject>();
const KEYS_LIMIT = 10_000;

function keyObjectFor(raw: Uint8Array): KeyObject {
  const id = Buffer.from(raw).toString('base64');
  let key = KEYS.get(id);
  if (!key) {
    if (KEYS.size >= KEYS_LIMIT) KEYS.clear();
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    KEYS.set(id, key);
  }
  return key;
}

export const nativeEd25519Verify: Ed25519VerifyFn = async (publicKey, message, signature) => {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) return false;
  if (!(signature instanceof Uint8Array) || signature.length !== 64) return false;
  if (!(message instanceof Uint8Array)) return false;
  if (!isCanonicalScalar(signature.subarray(32))) return false;
  try {
    return verify(null, message, keyObjectFor(publicKey), signature);
  } catch {
    return false;
  }
};
