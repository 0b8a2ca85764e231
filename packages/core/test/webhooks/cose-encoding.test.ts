/**
 * cose-sign1.ts writes its three CBOR structures by hand; they must be byte for byte what the cbor2 codec writes for
 * the same values (the encoding the profile was specified and its vectors made with), at every length where a CBOR
 * head changes size (23/24, 255/256, 65535/65536 bytes).
 */
import { encode, Tag } from 'cbor2';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src/encoding/utf8.ts';
import { coseProtectedHeader, coseSigStructure, signCoseSign1 } from '../../src/webhooks/cose-sign1.ts';

const BOUNDARIES = [0, 1, 23, 24, 255, 256, 65_535, 65_536, 70_000];
const length = fc.oneof(fc.constantFrom(...BOUNDARIES), fc.integer({ min: 0, max: 2_000 }));
const bytes = length.chain((n) => fc.uint8Array({ minLength: n, maxLength: n }));
const keyId = fc.oneof(
  fc.constantFrom('ns:key:a', 'ns:key:ed25519-20261124-0badc0de', `ns:key:${'k'.repeat(300)}`),
  fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => `ns:key:${s}`),
);

const cbor2Protected = (kid: string) =>
  encode(
    new Map<number, number | Uint8Array>([
      [1, -8],
      [4, utf8Encode(kid)],
    ]),
  );

describe('hand-written COSE_Sign1 encoding', () => {
  it('the protected header is what cbor2 writes', () => {
    fc.assert(
      fc.property(keyId, (kid) => {
        expect(coseProtectedHeader(kid)).toEqual(cbor2Protected(kid));
      }),
    );
  });

  it('the Sig_structure is what cbor2 writes', () => {
    fc.assert(
      fc.property(bytes, bytes, bytes, (prot, aad, payload) => {
        expect(coseSigStructure(prot, payload, aad)).toEqual(encode(['Signature1', prot, aad, payload]));
      }),
      { numRuns: 60 },
    );
  });

  it('the tagged COSE_Sign1 is what cbor2 writes, a Node Buffer payload included', async () => {
    const signature = Uint8Array.from({ length: 64 }, (_, i) => i);
    await fc.assert(
      fc.asyncProperty(keyId, bytes, async (kid, payload) => {
        const signer = { keyId: kid, sign: async () => Buffer.from(signature) };
        const got = await signCoseSign1(Buffer.from(payload), signer);
        const want = encode(new Tag(18, [cbor2Protected(kid), new Map(), payload, signature]));
        expect(got).toEqual(want);
      }),
      { numRuns: 60 },
    );
  });
});
