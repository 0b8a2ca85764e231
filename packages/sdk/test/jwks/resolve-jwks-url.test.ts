/**
 * The key-source argument: a JWKS URL or an issuer URL, told apart by the same rule in all three SDKs
 * (vectors/sdk/jwks-locations.json, walked by the Python and Go suites too), and fetched over loopback only from the
 * URL it resolves to.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwksSource, resolveJwksUrl, type JwksLocation } from '../../src/index.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/recording-server.ts';

interface LocationCase {
  desc: string;
  input: string | { jwks_url: string } | { issuer_url: string };
  want?: string;
  wantErr?: boolean;
}

const { cases } = JSON.parse(
  readFileSync(new URL('../../../../vectors/sdk/jwks-locations.json', import.meta.url), 'utf8'),
) as { cases: LocationCase[] };

function locationOf(input: LocationCase['input']): JwksLocation {
  if (typeof input === 'string') return input;
  return 'jwks_url' in input ? { jwksUrl: input.jwks_url } : { issuerUrl: input.issuer_url };
}

describe('resolveJwksUrl (vectors/sdk/jwks-locations.json)', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThan(10));
  for (const c of cases) {
    it(c.desc, () => {
      if (c.wantErr) expect(() => resolveJwksUrl(locationOf(c.input))).toThrow(/url|fragment|query|credentials/);
      else expect(resolveJwksUrl(locationOf(c.input))).toBe(c.want);
    });
  }
});

describe('createJwksSource takes a JWKS URL or an issuer URL', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startRecordingServer();
  });
  afterAll(() => server.close());
  const keys = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik', kid: 'k' }] };

  it('an issuer URL (with a path prefix) fetches <issuer>/.well-known/jwks.json, and only that', async () => {
    server.respond(json(200, keys));
    for (const location of [`${server.base}/tenant-a/`, { issuerUrl: `${server.base}/tenant-a` }]) {
      const source = createJwksSource(location);
      expect(source.url).toBe(`${server.base}/tenant-a/.well-known/jwks.json`);
      expect((await source.get()).keys).toHaveLength(1);
    }
    expect(server.requests.map((r) => r.url)).toEqual([
      '/tenant-a/.well-known/jwks.json',
      '/tenant-a/.well-known/jwks.json',
    ]);
  });

  it('a JWKS URL is fetched as named', async () => {
    server.requests.length = 0;
    server.respond(json(200, keys));
    await createJwksSource(`${server.base}/keys/jwks.json`).get();
    await createJwksSource({ jwksUrl: `${server.base}/keys/set` }).get();
    expect(server.requests.map((r) => r.url)).toEqual(['/keys/jwks.json', '/keys/set']);
  });

  it('a redirect is an error, never followed elsewhere', async () => {
    server.requests.length = 0;
    server.respond((_req, res) => {
      res.writeHead(302, { location: `${server.base}/elsewhere/jwks.json` });
      res.end();
    });
    await expect(createJwksSource(server.base).get()).rejects.toThrow();
    expect(server.requests.map((r) => r.url)).toEqual(['/.well-known/jwks.json']);
  });

  it('refuses a URL it would not fetch, before any request', () => {
    expect(() => createJwksSource('file:///etc/jwks.json')).toThrow(/http/);
    expect(() => createJwksSource(`${server.base}?tenant=a`)).toThrow(/query/);
  });
});
