import { describe, expect, it } from 'vitest';
import { sha512 } from '@noble/hashes/sha2.js';
import { encodeBase64 } from '../../src/encoding/base64.ts';
import { contentDigest, verifyContentDigest } from '../../src/http-signatures/content-digest.ts';

const body = new TextEncoder().encode('{"hello": "world"}');
// RFC 9530 Appendix B.1 / B.2: the digests of `{"hello": "world"}`.
const SHA256 = 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:';
const SHA512 = 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:';

describe('contentDigest', () => {
  it('gives the RFC 9530 sha-256 value of a body', () => {
    expect(contentDigest(body)).toBe(SHA256);
    expect(contentDigest('{"hello": "world"}')).toBe(SHA256);
  });

  it('digests the empty body', () => {
    expect(contentDigest(new Uint8Array(0))).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
  });
});

describe('verifyContentDigest', () => {
  it('accepts sha-256, sha-512, and both', () => {
    expect(verifyContentDigest(SHA256, body)).toEqual({ valid: true, algorithms: ['sha-256'] });
    expect(verifyContentDigest(SHA512, body)).toEqual({ valid: true, algorithms: ['sha-512'] });
    expect(verifyContentDigest(`${SHA512}, ${SHA256}`, body)).toEqual({
      valid: true,
      algorithms: ['sha-512', 'sha-256'],
    });
  });

  it('ignores algorithms it does not support, but needs one it does', () => {
    expect(verifyContentDigest(`md5=:AAAA:, ${SHA256}`, body).valid).toBe(true);
    expect(verifyContentDigest('md5=:AAAA:, sha=:AAAA:', body)).toMatchObject({
      valid: false,
      failure: 'unsupported_digest',
    });
  });

  it('refuses a body changed after the digest', () => {
    const changed = new TextEncoder().encode('{"hello": "World"}');
    expect(verifyContentDigest(SHA256, changed)).toMatchObject({ valid: false, failure: 'digest_mismatch' });
  });

  it('refuses when any supported member does not match, even if another does', () => {
    const wrong512 = `sha-512=:${encodeBase64(sha512(new Uint8Array([1])))}:`;
    expect(verifyContentDigest(`${SHA256}, ${wrong512}`, body)).toMatchObject({
      valid: false,
      failure: 'digest_mismatch',
    });
  });

  it.each([
    ['absent', undefined, 'missing_digest'],
    ['not a dictionary', 'sha-256=X48E9q', 'malformed_digest'],
    ['a duplicate member', `${SHA256}, ${SHA256}`, 'malformed_digest'],
    ['uppercase algorithm', SHA256.replace('sha-256', 'SHA-256'), 'malformed_digest'],
    ['base64url digest', 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE:', 'malformed_digest'],
    ['a string instead of bytes', 'sha-256="X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="', 'malformed_digest'],
    ['a truncated digest', 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9D:', 'malformed_digest'],
    ['parameters on the member', `${SHA256};x=1`, 'malformed_digest'],
    ['an inner list', `sha-256=(${SHA256.slice(8)})`, 'malformed_digest'],
    ['empty', '', 'unsupported_digest'],
  ])('refuses %s', (_name, header, failure) => {
    expect(verifyContentDigest(header, body)).toMatchObject({ valid: false, failure });
  });
});
