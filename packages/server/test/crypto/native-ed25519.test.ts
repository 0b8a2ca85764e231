/**
 * The server's native Ed25519 verifier must agree with Wycheproof on every case, exactly as core's WebCrypto one does
 * (packages/core/test/signing): the two are interchangeable on the agent-request path.
 */
import { readSharedJson } from '../../../../vectors/lib/shared-vectors.ts';
import { describe, expect, it } from 'vitest';
import { ed25519Verify } from '@aar/core';
import { nativeEd25519Verify, nativeEd25519VerifyOffThread } from '../../src/crypto/native-ed25519.ts';

interface WycheproofGroup {
  publicKey: { pk: string };
  tests: Array<{ tcId: number; comment: string; msg: string; sig: string; result: 'valid' | 'invalid' }>;
}
// C2SP/wycheproof, read from ../shared/vectors (never copied into the project)
const file = readSharedJson<{ testGroups: WycheproofGroup[] }>('ed25519', 'wycheproof_ed25519_test.json');
const cases = (file?.testGroups ?? []).flatMap((g) => g.tests.map((t) => ({ ...t, pk: g.publicKey.pk })));
const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));

describe('native Ed25519 verification', () => {
  it.skipIf(!file)('covers the whole Wycheproof file', () => {
    expect(cases.length).toBeGreaterThan(100);
  });

  it.each(cases)('tcId $tcId ($comment): $result, like WebCrypto', async (t) => {
    const native = await nativeEd25519Verify(hex(t.pk), hex(t.msg), hex(t.sig));
    expect(native).toBe(t.result === 'valid');
    expect(await ed25519Verify(hex(t.pk), hex(t.msg), hex(t.sig))).toBe(native);
    expect(await nativeEd25519VerifyOffThread(hex(t.pk), hex(t.msg), hex(t.sig))).toBe(native);
  });

  it('refuses malformed keys and signatures without throwing', async () => {
    const msg = new Uint8Array(1);
    expect(await nativeEd25519Verify(new Uint8Array(31), msg, new Uint8Array(64))).toBe(false);
    expect(await nativeEd25519Verify(new Uint8Array(32), msg, new Uint8Array(63))).toBe(false);
    expect(await nativeEd25519Verify(new Uint8Array(32).fill(255), msg, new Uint8Array(64))).toBe(false);
    for (const verifier of [nativeEd25519Verify, nativeEd25519VerifyOffThread]) {
      expect(await verifier(new Uint8Array(31), msg, new Uint8Array(64))).toBe(false);
      expect(await verifier(new Uint8Array(32), msg, new Uint8Array(63))).toBe(false);
      expect(await verifier(new Uint8Array(32).fill(255), msg, new Uint8Array(64))).toBe(false);
      expect(await verifier(new Uint8Array(32), 'not bytes' as never, new Uint8Array(64))).toBe(false);
    }
  });
});
