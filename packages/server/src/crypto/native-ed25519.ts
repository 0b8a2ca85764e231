/**
 * Ed25519 verification with node:crypto for the hot path (agent request signatures): the same strictness as core's
 * WebCrypto verifier (32-byte key, 64-byte signature, S < L), at a fraction of the cost on Node 20, whose WebCrypto
 * runs Ed25519 jobs on the main thread. Pinned to the Wycheproof vectors by test/crypto/native-ed25519.test.ts.
 * `nativeEd25519VerifyOffThread` is the same check with the curve arithmetic on libuv's thread pool (node:crypto's
 * callback form): a few microseconds of the event loop instead of ~60, so the second core verifies while this one
 * serves other requests (authorize, where every request carries a signature).
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

/** The strictness checks both forms share; the key object when the signature may be verified, else undefined. */
function checkedKey(publicKey: unknown, message: unknown, signature: unknown): KeyObject | undefined {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) return undefined;
  if (!(signature instanceof Uint8Array) || signature.length !== 64) return undefined;
  if (!(message instanceof Uint8Array)) return undefined;
  if (!isCanonicalScalar(signature.subarray(32))) return undefined;
  try {
    return keyObjectFor(publicKey);
  } catch {
    return undefined;
  }
}

export const nativeEd25519Verify: Ed25519VerifyFn = async (publicKey, message, signature) => {
  const key = checkedKey(publicKey, message, signature);
  if (!key) return false;
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
};

export const nativeEd25519VerifyOffThread: Ed25519VerifyFn = (publicKey, message, signature) => {
  const key = checkedKey(publicKey, message, signature);
  if (!key) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      // an error (a key the library refuses) is a failed verification, never an exception: fail closed
      verify(null, message, key, signature, (error, valid) => resolve(!error && valid === true));
    } catch {
      resolve(false);
    }
  });
};
