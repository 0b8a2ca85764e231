import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AarError } from '../../src/errors/aar-error.ts';
import { jwkThumbprint, parsePublicEd25519Jwk, toEd25519PublicJwk } from '../../src/signing/ed25519-jwk.ts';
import { decodeHex } from '../../src/encoding/hex.ts';

// RFC 8037 Appendix A.2 / A.3 (the RFC 8032 TEST 1 key).
const X = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
const D = 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A';

function refusedAt(value: unknown): string | undefined {
  try {
    parsePublicEd25519Jwk(value, '/public_key_jwk');
  } catch (error) {
    expect(error).toBeInstanceOf(AarError);
    expect((error as AarError).code).toBe('invalid_request');
    return (error as AarError).errors?.[0]?.path;
  }
  throw new Error('accepted');
}

describe('parsePublicEd25519Jwk', () => {
  it('keeps the known members and drops the rest (jku, x5u are never followed)', () => {
    const jwk = parsePublicEd25519Jwk(
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: X,
        kid: 'ns:key:a',
        alg: 'EdDSA',
        use: 'sig',
        valid_from: '2025-01-01T00:00:00Z',
        valid_until: '2026-01-01T00:00:00.5+01:00',
        jku: 'https://evil.example/jwks.json',
        x5u: 'https://evil.example/cert',
      },
      '',
    );
    expect(jwk).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: X,
      kid: 'ns:key:a',
      alg: 'EdDSA',
      use: 'sig',
      valid_from: '2025-01-01T00:00:00Z',
      valid_until: '2026-01-01T00:00:00.5+01:00',
    });
    expect(parsePublicEd25519Jwk({ kty: 'OKP', crv: 'Ed25519', x: X, alg: 'Ed25519' }, '').alg).toBe('Ed25519');
  });

  it.each([
    ['a private key', { kty: 'OKP', crv: 'Ed25519', x: X, d: D }, '/public_key_jwk/d'],
    ['not an object', 'jwk', '/public_key_jwk'],
    ['an array', [], '/public_key_jwk'],
    ['kty EC', { kty: 'EC', crv: 'Ed25519', x: X }, '/public_key_jwk/kty'],
    ['kty oct', { kty: 'oct', k: X }, '/public_key_jwk/kty'],
    ['crv X25519', { kty: 'OKP', crv: 'X25519', x: X }, '/public_key_jwk/crv'],
    ['crv Ed448', { kty: 'OKP', crv: 'Ed448', x: X }, '/public_key_jwk/crv'],
    ['x of 31 bytes', { kty: 'OKP', crv: 'Ed25519', x: X.slice(0, 42) }, '/public_key_jwk/x'],
    ['x of 33 bytes', { kty: 'OKP', crv: 'Ed25519', x: X + 'AA' }, '/public_key_jwk/x'],
    ['x padded', { kty: 'OKP', crv: 'Ed25519', x: X + '=' }, '/public_key_jwk/x'],
    ['x missing', { kty: 'OKP', crv: 'Ed25519' }, '/public_key_jwk/x'],
    ['alg HS256', { kty: 'OKP', crv: 'Ed25519', x: X, alg: 'HS256' }, '/public_key_jwk/alg'],
    ['alg none', { kty: 'OKP', crv: 'Ed25519', x: X, alg: 'none' }, '/public_key_jwk/alg'],
    ['use enc', { kty: 'OKP', crv: 'Ed25519', x: X, use: 'enc' }, '/public_key_jwk/use'],
    ['kid not a string', { kty: 'OKP', crv: 'Ed25519', x: X, kid: 7 }, '/public_key_jwk/kid'],
    [
      'valid_from not RFC 3339',
      { kty: 'OKP', crv: 'Ed25519', x: X, valid_from: 'yesterday' },
      '/public_key_jwk/valid_from',
    ],
  ])('refuses %s', (_name, value, path) => {
    expect(refusedAt(value)).toBe(path);
  });

  it('never echoes the private key', () => {
    try {
      parsePublicEd25519Jwk({ kty: 'OKP', crv: 'Ed25519', x: X, d: D }, '');
    } catch (error) {
      expect(JSON.stringify({ m: (error as AarError).message, e: (error as AarError).errors })).not.toContain(D);
    }
  });
});

describe('jwkThumbprint', () => {
  it('matches RFC 8037 Appendix A.3', async () => {
    expect(await jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: X })).toBe(
      'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
    );
  });

  it('hashes only crv, kty, x in RFC 7638 order, as node:crypto computes it', async () => {
    const expected = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${X}"}`).digest('base64url');
    expect(await jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: X, kid: 'ns:key:other', alg: 'EdDSA' })).toBe(expected);
  });
});

describe('toEd25519PublicJwk', () => {
  it('builds the JWK of raw key bytes', () => {
    const raw = decodeHex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    expect(toEd25519PublicJwk(raw, { kid: 'ns:key:k1', alg: 'EdDSA' })).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: X,
      kid: 'ns:key:k1',
      alg: 'EdDSA',
    });
    expect(() => toEd25519PublicJwk(raw.subarray(1))).toThrow(AarError);
  });
});
