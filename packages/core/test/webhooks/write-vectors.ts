/**
 * Writes vectors/webhooks/*.json: `npx tsx packages/core/test/webhooks/write-vectors.ts`. Each case is a delivery
 * signed by the fixed keys and secrets of fixtures.ts, mutated the way an attacker, a proxy or a bug would; the
 * expected outcome is written here by hand from CONTRACT section 9 and RFC 9052, not taken from the verifier.
 * Mutations that should fail for one reason only are re-signed around the mutation (a fresh v1a over the mutated
 * body, a COSE signature over the mutated headers), so the code the vector names is the only fault.
 * Deterministic: re-running leaves the files unchanged unless a case changed.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { encodeBase64 } from '../../src/encoding/base64.ts';
import { canonicalBytes } from '../../src/json/canonical-json.ts';
import type { Jwks } from '../../src/signing/ed25519-jwk.ts';
import { signDocument } from '../../src/signing/sign-document.ts';
import { coseProtectedHeader } from '../../src/webhooks/cose-sign1.ts';
import type { WebhookDeliveryInput } from '../../src/webhooks/sign-webhook-delivery.ts';
import { signWebhookDelivery } from '../../src/webhooks/sign-webhook-delivery.ts';
import type { WebhookProfile } from '../../src/webhooks/webhook-profile.ts';
import { utf8Encode } from '../../src/encoding/utf8.ts';
import { addL } from '../signing/malleate.ts';
import {
  concat,
  coseFrom,
  envelope,
  KEY_ID,
  NEW_SECRET,
  NOW,
  OLD_SECRET,
  otherKey,
  protectedMap,
  testKey,
  THIRD_SECRET,
  v1a,
  WEBHOOK_ID,
} from './fixtures.ts';

const OUT = fileURLToPath(new URL('../../../../vectors/webhooks/', import.meta.url));

export interface VectorInput {
  profile: WebhookProfile;
  headers: Record<string, string>;
  /** standard base64 of the exact body bytes */
  body: string;
  now: number;
  toleranceSeconds?: number;
  secrets?: string[];
  /** the receiver's trusted keys (the service's JWKS) */
  jwks?: Jwks;
  /** webhook ids the receiver has already processed */
  seen?: string[];
}

interface Case {
  file: string;
  desc: string;
  input: VectorInput;
  want?: { valid: true; webhook_id: string; timestamp: number; key_id?: string };
  wantErr?: string;
}

interface Delivery {
  headers: Record<string, string>;
  body: Uint8Array;
}

async function main(): Promise<void> {
  const key = await testKey();
  const other = await otherKey();
  const jwks: Jwks = { keys: [key.jwk, other.jwk] };
  const onlyOurs: Jwks = { keys: [key.jwk] };
  const cases: Case[] = [];

  const sign = async (profile: WebhookProfile, extra: Partial<WebhookDeliveryInput> = {}): Promise<Delivery> => {
    const signed = await signWebhookDelivery({
      profile,
      webhookId: WEBHOOK_ID,
      timestamp: NOW,
      envelope: envelope(),
      ...(profile === 'shared_secret' ? { secrets: [OLD_SECRET] } : { signer: key.signer }),
      ...extra,
    });
    return { headers: signed.headers, body: signed.body };
  };
  const input = (profile: WebhookProfile, d: Delivery, extra: Partial<VectorInput> = {}): VectorInput => ({
    profile,
    headers: d.headers,
    body: encodeBase64(d.body),
    now: NOW,
    ...(profile === 'shared_secret' ? { secrets: [OLD_SECRET] } : { jwks }),
    ...extra,
  });
  const ok = (file: string, desc: string, i: VectorInput, keyId?: string, timestamp = NOW): void => {
    const want = { valid: true as const, webhook_id: WEBHOOK_ID, timestamp, ...(keyId ? { key_id: keyId } : {}) };
    cases.push({ file: `valid-${file}.json`, desc, input: i, want });
  };
  const err = (file: string, desc: string, i: VectorInput, code: string): void => {
    cases.push({ file: `fail-${file}.json`, desc, input: i, wantErr: code });
  };
  const flip = (bytes: Uint8Array, at: number): Uint8Array => {
    const out = new Uint8Array(bytes);
    out[at] = (out[at] as number) ^ 0x01;
    return out;
  };
  const withHeaders = (d: Delivery, headers: Record<string, string | undefined>): Delivery => {
    const merged: Record<string, string> = { ...d.headers };
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) delete merged[name];
      else merged[name] = value;
    }
    return { body: d.body, headers: merged };
  };
  /** `body` with a fresh v1a by `signer` over it, so v1a is never the fault. */
  const resigned = async (d: Delivery, body: Uint8Array, signer = key.signer, id = WEBHOOK_ID): Promise<Delivery> => ({
    body,
    headers: { ...d.headers, 'webhook-signature': await v1a(signer, id, NOW, body) },
  });

  // ---- shared_secret ----
  const shared = await sign('shared_secret');
  ok('shared-secret', 'shared_secret: v1 HMAC-SHA256 with the one configured secret', input('shared_secret', shared));
  const signedShared = await sign('shared_secret', { signer: key.signer });
  ok(
    'shared-secret-with-document-signature',
    'shared_secret with the envelope signed (CONTRACT section 4) and the receiver checking that signature too',
    input('shared_secret', signedShared, { jwks: onlyOurs }),
    KEY_ID,
  );
  const rotated = await sign('shared_secret', { secrets: [OLD_SECRET, NEW_SECRET] });
  ok(
    'shared-secret-rotation-new-only',
    'during rotation both secrets sign; a receiver with only the new one accepts',
    input('shared_secret', rotated, { secrets: [NEW_SECRET] }),
  );
  ok(
    'shared-secret-rotation-old-only',
    'during rotation both secrets sign; a receiver still on the old one accepts',
    input('shared_secret', rotated, { secrets: [OLD_SECRET] }),
  );
  err(
    'shared-secret-rotation-third-secret',
    'during rotation both secrets sign; a receiver with a third secret refuses',
    input('shared_secret', rotated, { secrets: [THIRD_SECRET] }),
    'signature_invalid',
  );
  ok(
    'shared-secret-boundary-past',
    'timestamp exactly 300 s before now: accepted (inclusive)',
    input('shared_secret', shared, { now: NOW + 300 }),
  );
  ok(
    'shared-secret-boundary-future',
    'timestamp exactly 300 s after now: accepted (inclusive)',
    input('shared_secret', shared, { now: NOW - 300 }),
  );
  err(
    'shared-secret-stale',
    'timestamp 301 s before now',
    input('shared_secret', shared, { now: NOW + 301 }),
    'timestamp_stale',
  );
  err(
    'shared-secret-future',
    'timestamp 301 s after now',
    input('shared_secret', shared, { now: NOW - 301 }),
    'timestamp_in_future',
  );
  const millis = await sign('shared_secret', { timestamp: NOW * 1000 });
  err(
    'shared-secret-millisecond-timestamp',
    'a millisecond timestamp (correctly signed) is far in the future',
    input('shared_secret', millis),
    'timestamp_in_future',
  );
  err(
    'shared-secret-replayed',
    'an authentic delivery whose webhook-id the receiver has processed',
    input('shared_secret', shared, { seen: [WEBHOOK_ID] }),
    'replayed',
  );
  err(
    'shared-secret-body-flipped',
    'one body byte flipped',
    input('shared_secret', { ...shared, body: flip(shared.body, 40) }),
    'signature_invalid',
  );
  err(
    'shared-secret-id-changed',
    'webhook-id changed (the signature covers it)',
    input('shared_secret', withHeaders(shared, { 'webhook-id': 'ns:event:0197a5c0-6e00-7000-8000-00000000a002' })),
    'signature_invalid',
  );
  err(
    'shared-secret-timestamp-changed',
    'webhook-timestamp moved by one second (the signature covers it)',
    input('shared_secret', withHeaders(shared, { 'webhook-timestamp': String(NOW + 1) })),
    'signature_invalid',
  );
  err(
    'shared-secret-timestamp-plus-sign',
    'webhook-timestamp with a `+` sign',
    input('shared_secret', withHeaders(shared, { 'webhook-timestamp': `+${NOW}` })),
    'malformed_header',
  );
  err(
    'shared-secret-timestamp-float',
    'webhook-timestamp with a fraction',
    input('shared_secret', withHeaders(shared, { 'webhook-timestamp': `${NOW}.5` })),
    'malformed_header',
  );
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    err(
      `shared-secret-missing-${name}`,
      `header ${name} missing`,
      input('shared_secret', withHeaders(shared, { [name]: undefined })),
      'missing_header',
    );
  }
  err(
    'shared-secret-signature-base64url',
    'the v1 signature in base64url instead of base64',
    input(
      'shared_secret',
      withHeaders(shared, {
        'webhook-signature':
          (shared.headers['webhook-signature'] as string).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') +
          'A',
      }),
    ),
    'malformed_header',
  );
  err(
    'shared-secret-only-v1a',
    'shared_secret with only a v1a entry (no HMAC to check)',
    input('shared_secret', await resigned(shared, shared.body)),
    'signature_missing',
  );
  err(
    'shared-secret-unknown-version-only',
    'only an entry of a version this verifier does not know',
    input('shared_secret', withHeaders(shared, { 'webhook-signature': 'v9,AAAA' })),
    'signature_missing',
  );

  // ---- asymmetric ----
  const asym = await sign('asymmetric');
  ok(
    'asymmetric',
    'asymmetric: signed envelope as body, v1a Ed25519 by the same service key',
    input('asymmetric', asym),
    KEY_ID,
  );
  ok(
    'asymmetric-without-key-hint',
    'asymmetric without the webhook-key-id hint (the envelope names the key)',
    input('asymmetric', withHeaders(asym, { 'webhook-key-id': undefined })),
    KEY_ID,
  );
  err(
    'asymmetric-stale',
    'timestamp 301 s before now',
    input('asymmetric', asym, { now: NOW + 301 }),
    'timestamp_stale',
  );
  err(
    'asymmetric-replayed',
    'a webhook-id already processed',
    input('asymmetric', asym, { seen: [WEBHOOK_ID] }),
    'replayed',
  );
  err(
    'asymmetric-body-flipped',
    'one body byte flipped',
    input('asymmetric', { ...asym, body: flip(asym.body, 40) }),
    'signature_invalid',
  );
  const asymSig = (asym.headers['webhook-signature'] as string).slice(4);
  const sigBytes = Uint8Array.from(atob(asymSig), (c) => c.charCodeAt(0));
  err(
    'asymmetric-v1a-s-plus-l',
    'the v1a signature with S + L (malleated, refused by the strict verifier)',
    input('asymmetric', withHeaders(asym, { 'webhook-signature': `v1a,${encodeBase64(addL(sigBytes))}` })),
    'signature_invalid',
  );
  err(
    'asymmetric-v1a-by-other-key',
    'v1a made by another trusted key than the one the envelope names',
    input('asymmetric', await resigned(asym, asym.body, other.signer)),
    'signature_invalid',
  );
  err(
    'asymmetric-unknown-key',
    'signed by a key the receiver does not trust (absent from its JWKS)',
    input('asymmetric', asym, { jwks: { keys: [other.jwk] } }),
    'unknown_key',
  );
  const byUnknown = await sign('asymmetric', { signer: key.as('ns:key:not-published') });
  err(
    'asymmetric-v1a-from-unknown-key-id',
    'envelope and v1a signed under a key id absent from the JWKS',
    input('asymmetric', byUnknown),
    'unknown_key',
  );
  const pathLikeEnvelope = await signDocument(envelope(), key.as('../x'));
  const pathLikeBody = canonicalBytes(pathLikeEnvelope);
  err(
    'asymmetric-path-like-key-id',
    'the envelope names key id `../x`: refused before any lookup',
    input(
      'asymmetric',
      await resigned(withHeaders(asym, { 'webhook-key-id': undefined }), pathLikeBody, key.as('../x')),
    ),
    'invalid_key_id',
  );
  err(
    'asymmetric-key-hint-mismatch',
    'webhook-key-id names another key than the envelope',
    input('asymmetric', withHeaders(asym, { 'webhook-key-id': 'ns:key:rfc8032-test-2' })),
    'key_id_mismatch',
  );
  const tampered = JSON.parse(new TextDecoder().decode(asym.body)) as Record<string, unknown>;
  tampered.reason_code = 'admin_revoked_authority';
  err(
    'asymmetric-envelope-edited-and-v1a-resigned',
    'an envelope member edited after signing, with a valid v1a over the edited body: the document signature catches it',
    input('asymmetric', await resigned(asym, canonicalBytes(tampered))),
    'document_signature_invalid',
  );
  const unsigned = canonicalBytes(envelope());
  err(
    'asymmetric-envelope-unsigned',
    'an envelope without its document signature (v1a valid)',
    input('asymmetric', await resigned(asym, unsigned)),
    'document_signature_invalid',
  );
  const otherEvent = await signDocument(envelope('ns:event:0197a5c0-6e00-7000-8000-00000000a009'), key.signer);
  err(
    'asymmetric-envelope-id-mismatch',
    'a validly signed envelope of another event under this webhook-id',
    input('asymmetric', await resigned(asym, canonicalBytes(otherEvent))),
    'envelope_id_mismatch',
  );
  err(
    'asymmetric-only-v1',
    'asymmetric with only a v1 entry',
    input('asymmetric', withHeaders(asym, { 'webhook-signature': shared.headers['webhook-signature'] })),
    'signature_missing',
  );
  err(
    'asymmetric-body-not-json',
    'a body that is not json (v1a valid)',
    input('asymmetric', await resigned(asym, utf8Encode('not json'))),
    'envelope_invalid',
  );

  // ---- cose ----
  const cose = await sign('cose');
  ok(
    'cose',
    'cose: COSE_Sign1 tag 18, {1: -8, 4: kid} protected, payload the signed envelope, v1a over the body',
    input('cose', cose),
    KEY_ID,
  );
  err('cose-stale', 'timestamp 301 s before now', input('cose', cose, { now: NOW + 301 }), 'timestamp_stale');
  err('cose-replayed', 'a webhook-id already processed', input('cose', cose, { seen: [WEBHOOK_ID] }), 'replayed');
  err(
    'cose-body-flipped',
    'one byte of the COSE signature flipped (v1a then fails first)',
    input('cose', { ...cose, body: flip(cose.body, cose.body.length - 1) }),
    'signature_invalid',
  );
  err(
    'cose-signature-flipped',
    'one byte of the COSE signature flipped, v1a re-signed over the result',
    input('cose', await resigned(cose, flip(cose.body, cose.body.length - 1))),
    'cose_signature_invalid',
  );
  const payload = canonicalBytes(await signDocument(envelope(), key.signer));
  const ourProtected = coseProtectedHeader(KEY_ID);
  const coseCase = async (
    file: string,
    desc: string,
    body: Uint8Array,
    code: string,
    extra: Partial<VectorInput> = {},
  ) =>
    err(
      `cose-${file}`,
      desc,
      input('cose', await resigned(withHeaders(cose, { 'webhook-key-id': undefined }), body), extra),
      code,
    );
  await coseCase(
    'wrong-tag',
    'tag 98 (COSE_Sign) instead of 18',
    await coseFrom(key.signer, { protectedBytes: ourProtected, payload, tag: 98 }),
    'cose_wrong_tag',
  );
  await coseCase('untagged', 'the COSE_Sign1 array without its tag', cose.body.subarray(1), 'cose_wrong_tag');
  await coseCase(
    'alg-only-unprotected',
    'alg in the unprotected bucket only',
    await coseFrom(key.signer, {
      protectedBytes: protectedMap([[4, utf8Encode(KEY_ID)]]),
      unprotected: new Map([[1, -8]]),
      payload,
    }),
    'cose_alg_not_protected',
  );
  await coseCase(
    'alg-es256',
    'alg ES256 (-7) against an Ed25519 key',
    await coseFrom(key.signer, {
      protectedBytes: protectedMap([
        [1, -7],
        [4, utf8Encode(KEY_ID)],
      ]),
      payload,
    }),
    'cose_unsupported_alg',
  );
  await coseCase(
    'alg-text-eddsa',
    'alg as the text "EdDSA" instead of the integer -8',
    await coseFrom(key.signer, {
      protectedBytes: protectedMap([
        [1, 'EdDSA'],
        [4, utf8Encode(KEY_ID)],
      ]),
      payload,
    }),
    'cose_unsupported_alg',
  );
  await coseCase(
    'protected-empty-bstr',
    "protected h'' (empty), alg and kid unprotected",
    await coseFrom(key.signer, {
      protectedBytes: new Uint8Array(0),
      unprotected: new Map<number, unknown>([
        [1, -8],
        [4, utf8Encode(KEY_ID)],
      ]),
      payload,
    }),
    'cose_alg_not_protected',
  );
  await coseCase(
    'protected-empty-map',
    "protected h'a0' (an empty map, which RFC 9052 makes recipients accept), alg unprotected",
    await coseFrom(key.signer, {
      protectedBytes: Uint8Array.of(0xa0),
      unprotected: new Map<number, unknown>([
        [1, -8],
        [4, utf8Encode(KEY_ID)],
      ]),
      payload,
    }),
    'cose_alg_not_protected',
  );
  await coseCase(
    'kid-unprotected',
    'kid in the unprotected bucket only',
    await coseFrom(key.signer, {
      protectedBytes: protectedMap([[1, -8]]),
      unprotected: new Map([[4, utf8Encode(KEY_ID)]]),
      payload,
    }),
    'cose_kid_not_protected',
  );
  await coseCase(
    'label-in-both-buckets',
    'kid in both buckets',
    await coseFrom(key.signer, {
      protectedBytes: ourProtected,
      unprotected: new Map([[4, utf8Encode(KEY_ID)]]),
      payload,
    }),
    'cose_duplicate_label',
  );
  await coseCase(
    'crit',
    'crit (2) in the protected bucket',
    await coseFrom(key.signer, {
      protectedBytes: protectedMap([
        [1, -8],
        [2, [99]],
        [4, utf8Encode(KEY_ID)],
      ]),
      payload,
    }),
    'cose_crit_unsupported',
  );
  await coseCase(
    'external-aad',
    'signed over a non-empty external AAD; we verify with an empty one',
    await coseFrom(key.signer, { protectedBytes: ourProtected, payload, externalAad: utf8Encode('other-context') }),
    'cose_signature_invalid',
  );
  await coseCase(
    'detached-payload',
    'payload nil (detached)',
    await coseFrom(key.signer, { protectedBytes: ourProtected, payload: null }),
    'cose_detached_payload',
  );
  // a2 01 27 01 27 04 ...: label 1 twice in the protected map, the map count saying 3
  const duplicated = concat(Uint8Array.of(0xa3, 0x01, 0x27, 0x01, 0x27), ourProtected.subarray(3));
  await coseCase(
    'duplicate-protected-key',
    'label 1 twice inside the protected map',
    await coseFrom(key.signer, { protectedBytes: duplicated, payload }),
    'cose_malformed',
  );
  // d2 9f ... ff: the outer array in indefinite-length form
  await coseCase(
    'indefinite-array',
    'the outer array in indefinite-length encoding',
    concat(Uint8Array.of(0xd2, 0x9f), cose.body.subarray(2), Uint8Array.of(0xff)),
    'cose_malformed',
  );
  const halves = [payload.subarray(0, 10), payload.subarray(10)];
  const chunked = concat(
    Uint8Array.of(0xd2, 0x84),
    cose.body.subarray(2, 2 + 1 + ourProtected.length + 1 + 1),
    Uint8Array.of(0x5f, 0x4a),
    halves[0] as Uint8Array,
    Uint8Array.of(0x59, (halves[1]!.length >> 8) & 0xff, halves[1]!.length & 0xff),
    halves[1] as Uint8Array,
    Uint8Array.of(0xff),
    Uint8Array.of(0x58, 0x40),
    cose.body.subarray(cose.body.length - 64),
  );
  await coseCase(
    'indefinite-payload',
    'the payload as an indefinite-length byte string of two chunks',
    chunked,
    'cose_malformed',
  );
  await coseCase(
    'trailing-bytes',
    'one byte after the COSE_Sign1 item',
    concat(cose.body, Uint8Array.of(0x00)),
    'cose_malformed',
  );
  await coseCase(
    'non-preferred-integer',
    'alg -8 encoded in two bytes (38 07) instead of one (27)',
    await coseFrom(key.signer, {
      protectedBytes: concat(Uint8Array.of(0xa2, 0x01, 0x38, 0x07), ourProtected.subarray(3)),
      payload,
    }),
    'cose_malformed',
  );
  await coseCase(
    'unknown-kid',
    'kid of a key absent from the JWKS',
    await coseFrom(key.signer, { protectedBytes: coseProtectedHeader('ns:key:not-published'), payload }),
    'unknown_key',
  );
  await coseCase(
    'path-like-kid',
    'kid `../x`: refused before any lookup',
    await coseFrom(key.signer, {
      protectedBytes: protectedMap([
        [1, -8],
        [4, utf8Encode('../x')],
      ]),
      payload,
    }),
    'invalid_key_id',
  );
  await coseCase(
    'payload-not-json',
    'a validly signed payload that is not json',
    await coseFrom(key.signer, { protectedBytes: ourProtected, payload: utf8Encode('hello') }),
    'envelope_invalid',
  );
  await coseCase(
    'envelope-by-other-key',
    'the payload envelope signed by another key than the kid',
    await coseFrom(key.signer, {
      protectedBytes: ourProtected,
      payload: canonicalBytes(await signDocument(envelope(), other.signer)),
    }),
    'key_id_mismatch',
  );
  err(
    'cose-unknown-key',
    'signed by a key the receiver does not trust',
    input('cose', cose, { jwks: { keys: [other.jwk] } }),
    'unknown_key',
  );
  err(
    'cose-only-v1',
    'cose without v1a (the timestamp would not be authenticated)',
    input('cose', withHeaders(cose, { 'webhook-signature': shared.headers['webhook-signature'] })),
    'signature_missing',
  );

  mkdirSync(OUT, { recursive: true });
  for (const name of readdirSync(OUT)) if (/^(valid|fail)-.*\.json$/.test(name)) rmSync(OUT + name);
  for (const { file, ...vector } of cases) writeFileSync(OUT + file, JSON.stringify(vector, null, 2) + '\n');
  console.log(`wrote ${cases.length} vectors to ${OUT}`);
}

await main();
