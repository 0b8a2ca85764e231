/**
 * The webhook worker's signing thread (signing-thread.ts): batched Ed25519 on another thread must give exactly the
 * signatures the main thread gives (Ed25519 is deterministic), per key, also after being closed and restarted, and
 * refuse what it cannot sign instead of answering something else.
 */
import { execFile } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { SigningThread, type ThreadSigningKey } from '../../src/services/webhooks/signing-thread.ts';

function key(keyId: string, privateKey: KeyObject = generateKeyPairSync('ed25519').privateKey): ThreadSigningKey {
  return { keyId, privateKey, signSync: (m) => new Uint8Array(sign(null, m, privateKey)) };
}

const messages = Array.from({ length: 40 }, (_, i) => new TextEncoder().encode(`ns:event:${i}.1763950000.{"n":${i}}`));
let thread: SigningThread | undefined;
afterEach(async () => {
  await thread?.close();
});

describe('SigningThread', () => {
  it('signs a burst of messages with two keys exactly as the main thread does', async () => {
    thread = new SigningThread();
    const a = key('ns:key:a');
    const b = key('ns:key:b');
    const signatures = await Promise.all(messages.map((m, i) => thread!.sign(i % 2 ? b : a, m)));
    signatures.forEach((signature, i) => {
      const k = i % 2 ? b : a;
      expect(Buffer.from(signature).equals(Buffer.from(k.signSync(messages[i]!)))).toBe(true);
      expect(verify(null, messages[i]!, k.privateKey, signature)).toBe(true);
    });
  });

  it('tells apart two keys that carry the same key id (two stores in one process)', async () => {
    thread = new SigningThread();
    const one = key('ns:key:same');
    const other = key('ns:key:same');
    const [a, b] = await Promise.all([thread.sign(one, messages[0]!), thread.sign(other, messages[0]!)]);
    expect(verify(null, messages[0]!, one.privateKey, a)).toBe(true);
    expect(verify(null, messages[0]!, other.privateKey, b)).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('starts a new thread after close, knowing no key from before', async () => {
    thread = new SigningThread();
    const a = key('ns:key:a');
    await thread.sign(a, messages[0]!);
    await thread.close();
    const again = await thread.sign(a, messages[1]!);
    expect(Buffer.from(again).equals(Buffer.from(a.signSync(messages[1]!)))).toBe(true);
  });

  it('refuses a key that cannot make an Ed25519 signature rather than answer', async () => {
    thread = new SigningThread();
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const wrong: ThreadSigningKey = { keyId: 'ns:key:ec', privateKey: ec, signSync: () => new Uint8Array(64) };
    // node:crypto would sign with it (ECDSA over SHA-256): the thread signs with Ed25519 keys only
    await expect(thread.sign(wrong, messages[0]!)).rejects.toThrow(/signing thread/);
    // the thread still serves good keys
    const a = key(
      'ns:key:a',
      createPrivateKey(generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' })),
    );
    const ok = await thread.sign(a, messages[2]!);
    expect(verify(null, messages[2]!, a.privateKey, ok)).toBe(true);
  });

  it('holds the process open while a signature is pending, and never once idle', async () => {
    // a process whose only work is one signature on the shared thread: it must print it, then exit by itself
    const source = fileURLToPath(new URL('../../src/services/webhooks/signing-thread.ts', import.meta.url));
    const script = `
      import { generateKeyPairSync, sign } from 'node:crypto';
      import { sharedSigningThread } from ${JSON.stringify(source)};
      const { privateKey } = generateKeyPairSync('ed25519');
      const key = { keyId: 'k', privateKey, signSync: (m) => new Uint8Array(sign(null, m, privateKey)) };
      const signature = await sharedSigningThread().sign(key, new Uint8Array(8));
      console.log('signed', signature.length);`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { timeout: 20_000 },
    );
    expect(stdout.trim()).toBe('signed 64');
  });
});
