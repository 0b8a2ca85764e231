import { readSharedJson } from '../../../../vectors/lib/shared-vectors.ts';
import { describe, expect, it } from 'vitest';
import { decodeHex } from '../../src/encoding/hex.ts';
import { L, addL } from './malleate.ts';
import {
  ED25519_ALGORITHM,
  ed25519Verify,
  importEd25519PublicKey,
  isCanonicalScalar,
} from '../../src/signing/ed25519.ts';

interface WycheproofCase {
  tcId: number;
  comment: string;
  flags: string[];
  msg: string;
  sig: string;
  result: 'valid' | 'invalid';
}
interface WycheproofFile {
  numberOfTests: number;
  testGroups: { publicKey: { pk: string }; tests: WycheproofCase[] }[];
}

// C2SP/wycheproof, read from ../shared/vectors (never copied into the project)
const wycheproof = readSharedJson<WycheproofFile>('ed25519', 'wycheproof_ed25519_test.json');
const cases = (wycheproof?.testGroups ?? []).flatMap((group) =>
  group.tests.map((test) => ({ pk: group.publicKey.pk, ...test })),
);

// RFC 8032 section 7.1 TEST 1 (empty message).
const TEST1_PUBLIC = decodeHex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const TEST1_SIGNATURE = decodeHex(
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
);
describe.skipIf(!wycheproof)('ed25519Verify: Wycheproof ed25519_test.json', () => {
  it('holds every case', () => {
    expect(cases).toHaveLength(wycheproof!.numberOfTests);
    expect(cases.length).toBe(151);
  });

  it.each(cases)('tcId $tcId $result $flags $comment', async (test) => {
    const ok = await ed25519Verify(decodeHex(test.pk), decodeHex(test.msg), decodeHex(test.sig));
    expect(ok).toBe(test.result === 'valid');
  });
});

describe('ed25519Verify: strictness', () => {
  const empty = new Uint8Array(0);

  it('accepts RFC 8032 TEST 1', async () => {
    expect(await ed25519Verify(TEST1_PUBLIC, empty, TEST1_SIGNATURE)).toBe(true);
  });

  it('refuses S + L, and so does WebCrypto on its own (the explicit check is defence in depth)', async () => {
    const malleable = addL(TEST1_SIGNATURE);
    expect(isCanonicalScalar(malleable.subarray(32))).toBe(false);
    expect(await ed25519Verify(TEST1_PUBLIC, empty, malleable)).toBe(false);
    const key = await crypto.subtle.importKey('raw', new Uint8Array(TEST1_PUBLIC), ED25519_ALGORITHM, false, [
      'verify',
    ]);
    expect(await crypto.subtle.verify(ED25519_ALGORITHM, key, new Uint8Array(malleable), new Uint8Array(0))).toBe(
      false,
    );
  });

  it('checks S against L exactly', () => {
    const le = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn));
    expect(isCanonicalScalar(le(L - 1n))).toBe(true);
    expect(isCanonicalScalar(le(L))).toBe(false);
    expect(isCanonicalScalar(le(0n))).toBe(true);
    expect(isCanonicalScalar(new Uint8Array(31))).toBe(false);
  });

  it.each([
    ['a 63-byte signature', TEST1_PUBLIC, TEST1_SIGNATURE.subarray(0, 63)],
    ['a 65-byte signature', TEST1_PUBLIC, new Uint8Array([...TEST1_SIGNATURE, 0])],
    ['an all-zero signature', TEST1_PUBLIC, new Uint8Array(64)],
    ['a 31-byte key', TEST1_PUBLIC.subarray(0, 31), TEST1_SIGNATURE],
    ['a 33-byte key', new Uint8Array([...TEST1_PUBLIC, 0]), TEST1_SIGNATURE],
    ['an all-zero key', new Uint8Array(32), TEST1_SIGNATURE],
  ])('refuses %s without throwing', async (_name, key, signature) => {
    expect(await ed25519Verify(key, empty, signature)).toBe(false);
  });

  it('refuses non-byte arguments without throwing', async () => {
    const bad = 'x' as unknown as Uint8Array;
    expect(await ed25519Verify(bad, empty, TEST1_SIGNATURE)).toBe(false);
    expect(await ed25519Verify(TEST1_PUBLIC, bad, TEST1_SIGNATURE)).toBe(false);
    expect(await ed25519Verify(TEST1_PUBLIC, empty, bad)).toBe(false);
  });
});

describe('importEd25519PublicKey', () => {
  it('imports raw bytes and JWKs', async () => {
    const fromBytes = await importEd25519PublicKey(TEST1_PUBLIC);
    const fromJwk = await importEd25519PublicKey({
      kty: 'OKP',
      crv: 'Ed25519',
      x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
    });
    for (const key of [fromBytes, fromJwk]) {
      expect(key.algorithm.name).toBe('Ed25519');
      expect(
        await crypto.subtle.verify(ED25519_ALGORITHM, key, new Uint8Array(TEST1_SIGNATURE), new Uint8Array(0)),
      ).toBe(true);
    }
  });

  it('refuses wrong lengths and private JWKs with invalid_request', async () => {
    await expect(importEd25519PublicKey(new Uint8Array(31))).rejects.toMatchObject({ code: 'invalid_request' });
    const privateJwk = {
      kty: 'OKP',
      crv: 'Ed25519',
      x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
      d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
    };
    await expect(importEd25519PublicKey(privateJwk as never)).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
