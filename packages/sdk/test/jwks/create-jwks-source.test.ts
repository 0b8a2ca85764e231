/** The JWKS source: one fetch, shared and cached; one rate-limited refetch on an unknown kid; hostile keys dropped. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AarApiError, createJwksSource, verifyDocument } from '../../src/index.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/recording-server.ts';
import { signDocument, createWebCryptoSigner } from '@aar/core';

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

async function keyPair(kid: string) {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const { x } = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { pair, jwk: { kty: 'OKP', crv: 'Ed25519', x: x!, kid } };
}

describe('createJwksSource', () => {
  it('fetches once for concurrent and later lookups of known keys', async () => {
    const a = await keyPair('ns:key:a');
    server.respond(json(200, { keys: [a.jwk] }));
    const source = createJwksSource(`${server.base}/.well-known/jwks.json`);
    const [k1, k2] = await Promise.all([source.getKey('ns:key:a'), source.getKey('ns:key:a')]);
    expect(k1).toEqual(a.jwk);
    expect(k2).toEqual(a.jwk);
    await source.get();
    expect(server.requests).toHaveLength(1);
    expect(source.fetchCount).toBe(1);
  });

  it('refetches once on an unknown kid, at most every refetchIntervalSeconds', async () => {
    const a = await keyPair('ns:key:a');
    const b = await keyPair('ns:key:b');
    let clock = 1_000_000;
    server.respond(json(200, { keys: [a.jwk] }));
    const source = createJwksSource(`${server.base}/.well-known/jwks.json`, {
      refetchIntervalSeconds: 60,
      now: () => clock,
    });
    await source.get();
    clock += 61_000;
    // the service rotated in ns:key:b
    server.respond(json(200, { keys: [a.jwk, b.jwk] }));
    expect(await source.getKey('ns:key:b')).toEqual(b.jwk);
    expect(server.requests).toHaveLength(1);
    // a forged kid right after: no fetch (within the interval)
    expect(await source.getKey('ns:key:forged')).toBeUndefined();
    expect(await source.getKey('ns:key:forged-2')).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    clock += 60_000;
    expect(await source.getKey('ns:key:forged')).toBeUndefined();
    expect(server.requests).toHaveLength(2);
    expect(source.fetchCount).toBe(3);
  });

  it('drops private, malformed and kid-less keys; a kid published twice is trusted for neither', async () => {
    const a = await keyPair('ns:key:a');
    const b = await keyPair('ns:key:dup');
    const c = await keyPair('ns:key:dup');
    server.respond(
      json(200, {
        keys: [
          a.jwk,
          { ...a.jwk, kid: 'ns:key:private', d: 'AAAA' },
          { kty: 'RSA', kid: 'ns:key:rsa' },
          { ...a.jwk, kid: undefined },
          b.jwk,
          c.jwk,
        ],
      }),
    );
    const source = createJwksSource(`${server.base}/.well-known/jwks.json`, { refetchIntervalSeconds: 3600 });
    expect((await source.get()).keys.map((k) => k.kid)).toEqual(['ns:key:a', 'ns:key:dup', 'ns:key:dup']);
    expect(await source.getKey('ns:key:private')).toBeUndefined();
    expect(await source.getKey('ns:key:dup')).toBeUndefined();
  });

  it('verifies documents through the source, fetching keys only from its URL', async () => {
    const a = await keyPair('ns:key:a');
    server.respond(json(200, { keys: [a.jwk] }));
    const source = createJwksSource(`${server.base}/.well-known/jwks.json`);
    const doc = await signDocument({ hello: 'world' }, createWebCryptoSigner('ns:key:a', a.pair.privateKey));
    expect(await verifyDocument(doc, source)).toMatchObject({ valid: true, key_id: 'ns:key:a' });
    expect(await verifyDocument({ ...doc, hello: 'mallory' }, source)).toMatchObject({
      valid: false,
      failure: 'signature_mismatch',
    });
    expect(server.requests.map((r) => r.url)).toEqual(['/.well-known/jwks.json']);
  });

  it('throws when the issuer cannot be read: an unreachable issuer is not a verdict', async () => {
    server.respond(json(500, { code: 'internal' }));
    const source = createJwksSource(`${server.base}/.well-known/jwks.json`);
    await expect(source.get()).rejects.toBeInstanceOf(AarApiError);
    server.respond(json(200, { nope: true }));
    await expect(createJwksSource(`${server.base}/.well-known/jwks.json`).get()).rejects.toThrow(/keys/);
  });
});
