import { createHmac, createPublicKey, generateKeyPairSync, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64Url } from '../../src/encoding/base64url.ts';
import { ed25519Verify } from '../../src/signing/ed25519.ts';
import type { Ed25519PublicJwk, Jwks } from '../../src/signing/ed25519-jwk.ts';
import { toEd25519PublicJwk } from '../../src/signing/ed25519-jwk.ts';
import type { DocumentSignature, DocumentSigner } from '../../src/signing/sign-document.ts';
import { signDocument, signingBytes } from '../../src/signing/sign-document.ts';
import type { TrustedKeys } from '../../src/signing/verify-document.ts';
import { verifyDocument } from '../../src/signing/verify-document.ts';
import { createWebCryptoSigner } from '../../src/signing/web-crypto-signer.ts';
import { addL } from './malleate.ts';

const KEY_ID = 'ns:key:test-2025';
type Signed = Record<string, unknown> & { signature: DocumentSignature };

let signer: DocumentSigner;
let publicRaw: Uint8Array;
let jwk: Ed25519PublicJwk;
let jwks: Jwks;
let signed: Signed;

const doc = {
  kind: 'ns.decision_map.v1',
  decision: 'allow_with_constraints',
  amount: 30.5,
  currency: 'EUR',
  merchant: 'Café Crème ☕',
  nodes: [
    { id: 1, ok: true },
    { id: 2, ok: null },
  ],
};

async function generateSigner(keyId: string): Promise<{ signer: DocumentSigner; jwk: Ed25519PublicJwk }> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return { signer: createWebCryptoSigner(keyId, pair.privateKey), jwk: toEd25519PublicJwk(raw, { kid: keyId }) };
}

function withSignature(base: Signed, patch: Partial<Record<keyof DocumentSignature, unknown>>): unknown {
  return { ...base, signature: { ...base.signature, ...patch } };
}

beforeAll(async () => {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  publicRaw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  signer = createWebCryptoSigner(KEY_ID, pair.privateKey);
  jwk = toEd25519PublicJwk(publicRaw, { kid: KEY_ID, alg: 'EdDSA', use: 'sig' });
  jwks = { keys: [jwk] };
  signed = (await signDocument(doc, signer)) as Signed;
});

describe('signDocument', () => {
  it('produces the CONTRACT section 4 signature object', () => {
    expect(signed.signature.algorithm).toBe('ed25519');
    expect(signed.signature.key_id).toBe(KEY_ID);
    expect(signed.signature.signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect({ ...signed, signature: undefined }).toEqual({ ...doc, signature: undefined });
    expect(doc).not.toHaveProperty('signature');
  });

  it('verifies independently with node:crypto over canonicalize(doc without signature)', () => {
    const { signature, ...unsigned } = signed;
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    const bytes = Buffer.from(canonicalize(unsigned) as string, 'utf8');
    expect(nodeVerify(null, bytes, publicKey, Buffer.from(signature.signature, 'base64url'))).toBe(true);
    expect(Buffer.from(signingBytes(signed)).equals(bytes)).toBe(true);
  });

  it('replaces an existing signature rather than signing it', async () => {
    const again = (await signDocument(signed, signer)) as Signed;
    expect(Buffer.from(signingBytes(again)).equals(Buffer.from(signingBytes(signed)))).toBe(true);
    expect((await verifyDocument(again, jwks)).valid).toBe(true);
  });

  it('refuses documents JSON cannot hold, and arrays', async () => {
    await expect(signDocument({ amount: NaN }, signer)).rejects.toMatchObject({ code: 'invalid_json' });
    await expect(signDocument([1, 2], signer)).rejects.toMatchObject({ code: 'invalid_json' });
  });

  it('refuses a signer that does not return 64 bytes', async () => {
    const broken: DocumentSigner = { keyId: KEY_ID, sign: async () => new Uint8Array(63) };
    await expect(signDocument(doc, broken)).rejects.toMatchObject({ code: 'internal' });
  });
});

describe('verifyDocument accepts', () => {
  it('a document signed by a trusted key (JWKS and lookup function)', async () => {
    expect(await verifyDocument(signed, jwks)).toEqual({ valid: true, algorithm: 'ed25519', key_id: KEY_ID });
    const lookup = (kid: string) => (kid === KEY_ID ? jwk : undefined);
    expect((await verifyDocument(signed, lookup)).valid).toBe(true);
  });

  it('a document signed by node:crypto, independently of signDocument', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const x = publicKey.export({ format: 'jwk' }).x as string;
    const unsigned = { hello: 'world', n: [1, 2.5, -3] };
    const sig = nodeSign(null, Buffer.from(canonicalize(unsigned) as string), privateKey).toString('base64url');
    const document = { ...unsigned, signature: { algorithm: 'ed25519', key_id: 'ns:key:node', signature: sig } };
    const trusted = { keys: [{ kty: 'OKP', crv: 'Ed25519', x, kid: 'ns:key:node' }] } as Jwks;
    expect(await verifyDocument(document, trusted)).toEqual({
      valid: true,
      algorithm: 'ed25519',
      key_id: 'ns:key:node',
    });
  });

  it('a rotated set: the old key still verifies its documents', async () => {
    const next = await generateSigner('ns:key:test-2026');
    const rotated: Jwks = { keys: [next.jwk, { ...jwk, valid_until: '2026-01-01T00:00:00Z' }] };
    expect((await verifyDocument(signed, rotated)).valid).toBe(true);
    expect((await verifyDocument(await signDocument(doc, next.signer), rotated)).valid).toBe(true);
  });
});

describe('verifyDocument refuses', () => {
  it('a flipped bit in any byte of the signature', async () => {
    const sig = Buffer.from(signed.signature.signature, 'base64url');
    for (let i = 0; i < 64; i++) {
      const flipped = Buffer.from(sig);
      flipped[i] = (flipped[i] as number) ^ (1 << (i % 8));
      const result = await verifyDocument(withSignature(signed, { signature: flipped.toString('base64url') }), jwks);
      expect(result.valid, `byte ${i}`).toBe(false);
      expect(['signature_mismatch', 'malformed_signature']).toContain(result.failure);
    }
  });

  it('a flipped bit in any byte of the signed bytes', async () => {
    const bytes = signingBytes(signed);
    const sig = Buffer.from(signed.signature.signature, 'base64url');
    expect(await ed25519Verify(publicRaw, bytes, sig)).toBe(true);
    for (let i = 0; i < bytes.length; i++) {
      const flipped = new Uint8Array(bytes);
      flipped[i] = (flipped[i] as number) ^ 0x01;
      expect(await ed25519Verify(publicRaw, flipped, sig), `byte ${i}`).toBe(false);
    }
  });

  it.each([
    ['a changed amount', (d: Signed) => ({ ...d, amount: 3050 })],
    ['a changed string', (d: Signed) => ({ ...d, merchant: 'Cafe Creme ☕' })],
    ['an added member', (d: Signed) => ({ ...d, approved: true })],
    ['a removed member', (d: Signed) => Object.fromEntries(Object.entries(d).filter(([k]) => k !== 'decision'))],
    ['a reordered array', (d: Signed) => ({ ...d, nodes: [...(d.nodes as unknown[])].reverse() })],
  ])('%s (signature_mismatch)', async (_name, tamper) => {
    expect(await verifyDocument(tamper(signed), jwks)).toEqual({
      valid: false,
      algorithm: 'ed25519',
      key_id: KEY_ID,
      failure: 'signature_mismatch',
    });
  });

  it.each([
    ['an unknown kid', 'ns:key:unknown'],
    ['a path-like kid', '../ns:key:test-2025'],
    ['a kid with a trailing slash', `${KEY_ID}/`],
    ['a case variant of the kid', KEY_ID.toUpperCase()],
    ['a URL kid', 'https://evil.example/.well-known/jwks.json'],
  ])('%s (unknown_key)', async (_name, keyId) => {
    const result = await verifyDocument(withSignature(signed, { key_id: keyId }), jwks);
    expect(result).toMatchObject({ valid: false, failure: 'unknown_key', key_id: keyId });
  });

  it('a signature by another key under the trusted kid (signature_mismatch)', async () => {
    const impostor = await generateSigner(KEY_ID);
    const result = await verifyDocument(await signDocument(doc, impostor.signer), jwks);
    expect(result.failure).toBe('signature_mismatch');
  });

  it.each(['none', 'HS256', 'ES256', 'EdDSA', 'Ed25519', 'ED25519', ''])(
    'algorithm %j in the document (unsupported_algorithm)',
    async (algorithm) => {
      const result = await verifyDocument(withSignature(signed, { algorithm }), jwks);
      expect(result.failure).toBe('unsupported_algorithm');
    },
  );

  it('an HS256 signature keyed with the public key (alg confusion)', async () => {
    const { signature: _s, ...unsigned } = signed;
    const mac = createHmac('sha256', Buffer.from(publicRaw))
      .update(canonicalize(unsigned) as string)
      .digest();
    const forged = {
      ...unsigned,
      signature: { algorithm: 'HS256', key_id: KEY_ID, signature: mac.toString('base64url') },
    };
    expect((await verifyDocument(forged, jwks)).failure).toBe('unsupported_algorithm');
    const relabelled = { ...forged, signature: { ...forged.signature, algorithm: 'ed25519' } };
    expect((await verifyDocument(relabelled, jwks)).failure).toBe('malformed_signature');
  });

  it.each([
    ['alg HS256', { alg: 'HS256' }],
    ['alg ES256', { alg: 'ES256' }],
    ['alg none', { alg: 'none' }],
    ['use enc', { use: 'enc' }],
    ['kty oct', { kty: 'oct', k: 'c2VjcmV0' }],
    ['kty EC', { kty: 'EC', crv: 'P-256' }],
    ['crv X25519', { crv: 'X25519' }],
    ['a private key', { d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A' }],
    ['a short x', { x: 'AAAA' }],
  ])('a trusted key with %s (invalid_key)', async (_name, patch) => {
    const result = await verifyDocument(signed, { keys: [{ ...jwk, ...patch } as Ed25519PublicJwk] });
    expect(result.failure).toBe('invalid_key');
  });

  it('two trusted keys under one kid (invalid_key)', async () => {
    const other = await generateSigner(KEY_ID);
    expect((await verifyDocument(signed, { keys: [jwk, other.jwk] })).failure).toBe('invalid_key');
  });

  it('a lookup function that throws, answers nothing, or answers another key', async () => {
    const throwing: TrustedKeys = () => {
      throw new Error('boom');
    };
    expect((await verifyDocument(signed, throwing)).failure).toBe('unknown_key');
    expect((await verifyDocument(signed, () => undefined)).failure).toBe('unknown_key');
    expect((await verifyDocument(signed, () => ({ ...jwk, kid: 'ns:key:other' }))).failure).toBe('invalid_key');
  });

  describe('malformed signatures', () => {
    const sigBytes = () => Buffer.from(signed.signature.signature, 'base64url');
    it.each([
      ['63 bytes', () => encodeBase64Url(sigBytes().subarray(0, 63))],
      ['65 bytes', () => encodeBase64Url(Buffer.concat([sigBytes(), Buffer.from([0])]))],
      ['empty', () => ''],
      ['padded base64url', () => `${signed.signature.signature}==`],
      ['standard base64 (padded)', () => sigBytes().toString('base64')],
      ['whitespace', () => ` ${signed.signature.signature}`],
      ['not a string', () => 42],
      ['an array of bytes', () => [...sigBytes()]],
    ])('%s (malformed_signature)', async (_name, make) => {
      const result = await verifyDocument(withSignature(signed, { signature: make() }), jwks);
      expect(result).toMatchObject({ valid: false, failure: 'malformed_signature' });
    });

    it('standard base64 without padding, with + or / (malformed_signature)', async () => {
      for (let i = 0; ; i++) {
        const candidate = (await signDocument({ ...doc, i }, signer)) as Signed;
        const standard = Buffer.from(candidate.signature.signature, 'base64url').toString('base64').replace(/=+$/, '');
        if (!/[+/]/.test(standard)) continue;
        const result = await verifyDocument(withSignature(candidate, { signature: standard }), jwks);
        expect(result.failure).toBe('malformed_signature');
        return;
      }
    });

    it.each([
      ['all zeros', () => encodeBase64Url(new Uint8Array(64))],
      ['S + L', () => encodeBase64Url(addL(sigBytes()))],
    ])('%s (signature_mismatch)', async (_name, make) => {
      const result = await verifyDocument(withSignature(signed, { signature: make() }), jwks);
      expect(result).toMatchObject({ valid: false, failure: 'signature_mismatch' });
    });
  });

  it.each([
    ['null', null, 'missing_signature'],
    ['a number', 42, 'missing_signature'],
    ['a string', '{"signature":{}}', 'missing_signature'],
    ['an array', [1], 'missing_signature'],
    ['no signature member', { a: 1 }, 'missing_signature'],
    ['signature null', { a: 1, signature: null }, 'malformed_signature'],
    ['signature a string', { a: 1, signature: 'abc' }, 'malformed_signature'],
    ['signature an array', { a: 1, signature: [] }, 'malformed_signature'],
    ['no key_id', { a: 1, signature: { algorithm: 'ed25519', signature: 'AA' } }, 'malformed_signature'],
    [
      'key_id a number',
      { a: 1, signature: { algorithm: 'ed25519', key_id: 1, signature: 'AA' } },
      'malformed_signature',
    ],
    ['no algorithm', { a: 1, signature: { key_id: KEY_ID, signature: 'AA' } }, 'malformed_signature'],
  ])('a hostile document: %s', async (_name, value, failure) => {
    const result = await verifyDocument(value, jwks);
    expect(result).toMatchObject({ valid: false, algorithm: 'ed25519', failure });
  });

  it('unknown members inside the (unsigned) signature object', async () => {
    const result = await verifyDocument(withSignature(signed, { jku: 'https://evil.example' } as never), jwks);
    expect(result.failure).toBe('malformed_signature');
  });

  it('never throws, even on throwing getters, proxies, lone surrogates or a broken trusted set', async () => {
    const getter = Object.defineProperty({ ...signed }, 'amount', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    const proxy = new Proxy(signed, {
      ownKeys() {
        throw new Error('boom');
      },
    });
    const surrogate = { ...signed, merchant: 'a\ud800' };
    for (const hostile of [getter, proxy, surrogate]) {
      const result = await verifyDocument(hostile, jwks);
      expect(result.valid).toBe(false);
    }
    expect((await verifyDocument(surrogate, jwks)).failure).toBe('signature_mismatch');
    expect((await verifyDocument(signed, { keys: 'nope' } as never)).failure).toBe('unknown_key');
    expect((await verifyDocument(signed, null as never)).failure).toBe('unknown_key');
  });
});
