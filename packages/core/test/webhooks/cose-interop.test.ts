/**
 * COSE_Sign1 interop with implementations we did not write: the cose-wg/Examples EdDSA messages decode with our
 * strict decoder, our Sig_structure equals their `ToBeSign` bytes, and the Ed25519 one verifies with our verifier
 * and their key. The Ed448 one (eddsa-sig-02) is refused by our Ed25519-only verifier as `invalid_key` (the key
 * type decides, not the message's `alg`), and its signature is checked over our Sig_structure with node:crypto.
 * Our own messages decode with cbor2's generic decoder to tag 18 with the structure RFC 9052 gives.
 */
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedVectorPath } from '../../../../vectors/lib/shared-vectors.ts';
import { decode, Tag } from 'cbor2';
import { describe, expect, it } from 'vitest';
import { encodeBase64Url } from '../../src/encoding/base64url.ts';
import { decodeHex } from '../../src/encoding/hex.ts';
import { utf8Encode } from '../../src/encoding/utf8.ts';
import { canonicalBytes } from '../../src/json/canonical-json.ts';
import { signDocument } from '../../src/signing/sign-document.ts';
import { coseSigStructure } from '../../src/webhooks/cose-sign1.ts';
import { decodeCoseSign1 } from '../../src/webhooks/decode-cose-sign1.ts';
import { signWebhookDelivery } from '../../src/webhooks/sign-webhook-delivery.ts';
import { verifyCoseSign1 } from '../../src/webhooks/verify-cose-sign1.ts';
import { envelope, NOW, testKey, WEBHOOK_ID } from './fixtures.ts';

// cose-wg/Examples eddsa-examples, read from ../shared/vectors/cose (never copied into the project)
const UPSTREAM = sharedVectorPath('cose');

interface CoseExample {
  title: string;
  input: {
    plaintext: string;
    sign0?: { key: { kty: string; kid: string; crv: string; x_hex: string } };
  };
  intermediates: { ToBeSign_hex: string };
  output: { cbor: string };
}

const load = (name: string): CoseExample => JSON.parse(readFileSync(join(UPSTREAM!, name), 'utf8')) as CoseExample;

function theirKey(example: CoseExample) {
  const key = example.input.sign0?.key;
  if (!key) throw new Error('not a sign0 example');
  return { kty: key.kty, crv: key.crv, kid: key.kid, x: encodeBase64Url(decodeHex(key.x_hex)) };
}

describe.skipIf(!UPSTREAM)('cose-wg/Examples', () => {
  it('eddsa-sig-01 (Ed25519, kid unprotected) verifies with our decoder and verifier and their key', async () => {
    const example = load('eddsa-sig-01.json');
    const bytes = decodeHex(example.output.cbor);
    const decoded = decodeCoseSign1(bytes);
    if (!decoded.ok) throw new Error(decoded.detail);
    expect(coseSigStructure(decoded.message.protectedBytes, decoded.message.payload)).toEqual(
      decodeHex(example.intermediates.ToBeSign_hex),
    );
    const asked: string[] = [];
    const result = await verifyCoseSign1(bytes, {
      resolveKey: (kid) => {
        asked.push(kid);
        return kid === '11' ? (theirKey(example) as never) : undefined;
      },
    });
    expect(result).toMatchObject({ valid: true, key_id: '11' });
    expect(new TextDecoder().decode(result.payload)).toBe(example.input.plaintext);
    expect(asked).toEqual(['11']);

    // Our webhook profile wants the kid protected: the same message is refused there, for that reason only.
    const strict = await verifyCoseSign1(bytes, {
      resolveKey: () => theirKey(example) as never,
      requireProtectedKid: true,
    });
    expect(strict.code).toBe('cose_kid_not_protected');
    // Any other external AAD, or a flipped signature byte, fails.
    const aad = await verifyCoseSign1(bytes, {
      resolveKey: () => theirKey(example) as never,
      externalAad: utf8Encode('x'),
    });
    expect(aad.code).toBe('cose_signature_invalid');
    const flipped = new Uint8Array(bytes);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 1;
    expect((await verifyCoseSign1(flipped, { resolveKey: () => theirKey(example) as never })).code).toBe(
      'cose_signature_invalid',
    );
  });

  it('eddsa-sig-02 (Ed448) decodes, matches their ToBeSign, and is refused by the Ed25519 verifier by key type', async () => {
    const example = load('eddsa-sig-02.json');
    const bytes = decodeHex(example.output.cbor);
    const decoded = decodeCoseSign1(bytes);
    if (!decoded.ok) throw new Error(decoded.detail);
    const toBeSigned = coseSigStructure(decoded.message.protectedBytes, decoded.message.payload);
    expect(toBeSigned).toEqual(decodeHex(example.intermediates.ToBeSign_hex));
    const ed448 = createPublicKey({ key: theirKey(example), format: 'jwk' });
    expect(nodeVerify(null, toBeSigned, ed448, decoded.message.signature)).toBe(true);

    const result = await verifyCoseSign1(bytes, { resolveKey: () => theirKey(example) as never });
    expect(result).toMatchObject({ valid: false, code: 'invalid_key', key_id: 'ed448' });
  });

  it('eddsa-01 (a COSE_Sign, tag 98) is refused as the wrong tag', () => {
    const decoded = decodeCoseSign1(decodeHex(load('eddsa-01.json').output.cbor));
    expect(decoded).toMatchObject({ ok: false, failure: 'cose_wrong_tag' });
  });
});

describe('our COSE body through cbor2 generic decoder', () => {
  it('is tag 18 over [bstr {1: -8, 4: kid}, {}, bstr payload, bstr 64]', async () => {
    const key = await testKey();
    const delivery = await signWebhookDelivery({
      profile: 'cose',
      webhookId: WEBHOOK_ID,
      timestamp: NOW,
      envelope: envelope(),
      signer: key.signer,
    });
    expect(delivery.contentType).toBe('application/cose');
    expect(delivery.body[0]).toBe(0xd2); // tag 18 in one byte
    const outer = decode(delivery.body);
    expect(outer).toBeInstanceOf(Tag);
    const tagged = outer as Tag;
    expect(tagged.tag).toBe(18);
    const [protectedBytes, unprotected, payload, signature] = tagged.contents as [
      Uint8Array,
      unknown,
      Uint8Array,
      Uint8Array,
    ];
    expect(decode(protectedBytes, { preferMap: true })).toEqual(
      new Map<number, unknown>([
        [1, -8],
        [4, utf8Encode(key.keyId)],
      ]),
    );
    expect(unprotected instanceof Map ? unprotected.size : Object.keys(unprotected as object).length).toBe(0);
    expect(payload).toEqual(canonicalBytes(await signDocument(envelope(), key.signer)));
    expect(signature.length).toBe(64);
    // The signature is Ed25519 over Sig_structure with an empty external AAD, checked here with node:crypto.
    const publicKey = createPublicKey({ key: key.jwk as never, format: 'jwk' });
    expect(nodeVerify(null, coseSigStructure(protectedBytes, payload), publicKey, signature)).toBe(true);
  });
});
