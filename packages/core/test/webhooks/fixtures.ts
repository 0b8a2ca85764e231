/**
 * Fixed keys, secrets and envelopes for the webhook tests and vectors: the RFC 8032 section 7.1 TEST 1 and TEST 2
 * keys, secrets made of counted bytes, one ns.webhook.v1 envelope. Everything is deterministic (Ed25519 and HMAC
 * are), so the vectors written from these are byte-stable.
 */
import { encode, Tag } from 'cbor2';
import { encodeBase64 } from '../../src/encoding/base64.ts';
import { decodeHex } from '../../src/encoding/hex.ts';
import type { Ed25519PublicJwk } from '../../src/signing/ed25519-jwk.ts';
import { toEd25519PublicJwk } from '../../src/signing/ed25519-jwk.ts';
import type { DocumentSigner } from '../../src/signing/sign-document.ts';
import { createWebCryptoSigner } from '../../src/signing/web-crypto-signer.ts';
import { coseSigStructure } from '../../src/webhooks/cose-sign1.ts';
import { webhookSignedContent } from '../../src/webhooks/signed-content.ts';
import { generateWebhookSecret } from '../../src/webhooks/webhook-secret.ts';

export const NOW = 1_750_000_000;
export const WEBHOOK_ID = 'ns:event:0197a5c0-6e00-7000-8000-00000000a001';
export const KEY_ID = 'ns:key:rfc8032-test-1';
export const OTHER_KEY_ID = 'ns:key:rfc8032-test-2';

/** RFC 8032 section 7.1 TEST 1 and TEST 2 secret keys. */
export const TEST_1_SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const TEST_2_D = '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb';

const counted = (length: number, start: number): Uint8Array =>
  Uint8Array.from({ length }, (_, i) => (start + i) & 0xff);
/** The secret before a rotation, the one after it, and one the sender never used. */
export const OLD_SECRET = generateWebhookSecret(counted(24, 1));
export const NEW_SECRET = generateWebhookSecret(counted(32, 101));
export const THIRD_SECRET = generateWebhookSecret(counted(24, 201));

export interface TestKey {
  keyId: string;
  signer: DocumentSigner;
  jwk: Ed25519PublicJwk;
  /** the same private key under another key id (to forge what a confused or hostile sender would send) */
  as(keyId: string): DocumentSigner;
}

const PKCS8_ED25519_PREFIX = '302e020100300506032b657004220420';

async function keyFromSeed(seedHex: string, keyId: string): Promise<TestKey> {
  const pkcs8 = decodeHex(PKCS8_ED25519_PREFIX + seedHex);
  const privateKey = await crypto.subtle.importKey('pkcs8', new Uint8Array(pkcs8), { name: 'Ed25519' }, true, ['sign']);
  const { x } = (await crypto.subtle.exportKey('jwk', privateKey)) as { x: string };
  const raw = Uint8Array.from(atob(x.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  return {
    keyId,
    signer: createWebCryptoSigner(keyId, privateKey),
    jwk: toEd25519PublicJwk(raw, { kid: keyId, alg: 'EdDSA', use: 'sig' }),
    as: (other) => createWebCryptoSigner(other, privateKey),
  };
}

export const testKey = (): Promise<TestKey> => keyFromSeed(TEST_1_SEED, KEY_ID);
export const otherKey = (): Promise<TestKey> => keyFromSeed(TEST_2_D, OTHER_KEY_ID);

export function envelope(eventId = WEBHOOK_ID): Record<string, unknown> {
  return {
    schema_version: 'ns.webhook.v1',
    event_id: eventId,
    event_type: 'ns.authority.revoked',
    occurred_at: '2025-06-15T15:06:40.000Z',
    actor_entity_id: 'ns:entity:person:alice',
    principal_entity_id: 'ns:entity:person:alice',
    subject_ref: 'ns:authority:grant:0197a5c0-6e00-7000-8000-00000000b001',
    reason_code: 'principal_revoked_authority',
    data: {
      previous_state: 'active',
      new_state: 'revoked',
      affected_capabilities: ['ns:capability:payment_action:card_purchase'],
      revocation_root: 'ns:authority:grant:0197a5c0-6e00-7000-8000-00000000b001',
    },
    audit_ref: 'ns:audit:0197a5c0-6e00-7000-8000-00000000c001',
    evidence_refs: [],
    delivery: { idempotency_key: eventId, replayable: true },
  };
}

/** `v1a,<base64 Ed25519>` over `{id}.{timestamp}.{body}`. */
export async function v1a(signer: DocumentSigner, id: string, timestamp: number, body: Uint8Array): Promise<string> {
  return `v1a,${encodeBase64(await signer.sign(webhookSignedContent(id, timestamp, body)))}`;
}

export interface CoseParts {
  protectedBytes: Uint8Array;
  unprotected?: Map<number | string, unknown>;
  payload: Uint8Array | null;
  externalAad?: Uint8Array;
  tag?: number;
}

/** A COSE_Sign1 built from raw parts and validly signed over them: only the rule under test can fail. */
export async function coseFrom(signer: DocumentSigner, parts: CoseParts): Promise<Uint8Array> {
  const payload = parts.payload ?? new Uint8Array(0);
  const signature = await signer.sign(coseSigStructure(parts.protectedBytes, payload, parts.externalAad));
  const array = [parts.protectedBytes, parts.unprotected ?? new Map(), parts.payload, signature];
  return encode(new Tag(parts.tag ?? 18, array));
}

export function protectedMap(entries: Array<[number | string, unknown]>): Uint8Array {
  return encode(new Map(entries));
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
