import { describe, expect, it } from 'vitest';
import { buildSignatureBase, signatureBase } from '../../src/http-signatures/signature-base.ts';
import type { SignableRequest } from '../../src/http-signatures/http-request.ts';

const request = (overrides: Partial<SignableRequest> = {}): SignableRequest => ({
  method: 'POST',
  url: 'https://www.example.com/path?param=value&foo=bar',
  headers: {},
  ...overrides,
});
const line = (component: string, req: SignableRequest): string =>
  signatureBase([component], req, {}).split('\n')[0] as string;

describe('signatureBase: derived components (RFC 9421 section 2.2)', () => {
  it('gives the values of the RFC examples', () => {
    const req = request();
    expect(line('@method', req)).toBe('"@method": POST');
    expect(line('@target-uri', req)).toBe('"@target-uri": https://www.example.com/path?param=value&foo=bar');
    expect(line('@authority', req)).toBe('"@authority": www.example.com');
    expect(line('@scheme', req)).toBe('"@scheme": https');
    expect(line('@path', req)).toBe('"@path": /path');
    expect(line('@query', req)).toBe('"@query": ?param=value&foo=bar');
  });

  it('gives `?` for an absent or empty query and `/` for an empty path', () => {
    expect(line('@query', request({ url: 'https://example.com/x' }))).toBe('"@query": ?');
    expect(line('@query', request({ url: 'https://example.com/x?' }))).toBe('"@query": ?');
    expect(line('@path', request({ url: 'https://example.com' }))).toBe('"@path": /');
  });

  it('normalizes one URL spelled differently to the same values, and drops the fragment', () => {
    const a = request({ url: 'https://EXAMPLE.com:443/a/./b?x=1#frag' });
    expect(line('@target-uri', a)).toBe('"@target-uri": https://example.com/a/b?x=1');
    expect(line('@authority', request({ url: 'http://Example.com:8080/' }))).toBe('"@authority": example.com:8080');
  });

  it('keeps the method as sent (it is case-sensitive)', () => {
    expect(line('@method', request({ method: 'post' }))).toBe('"@method": post');
  });

  it.each([
    ['a relative URL', { url: '/v1/runtime/authorize' }],
    ['a non-http scheme', { url: 'file:///etc/passwd' }],
    ['userinfo', { url: 'https://user:pw@example.com/' }],
    ['a method that is not a token', { method: 'PO ST' }],
  ])('refuses %s', (_name, overrides) => {
    const component = 'method' in overrides ? '@method' : '@target-uri';
    expect(buildSignatureBase([component], request(overrides), new Map())).toEqual({
      failure: 'invalid_component_value',
      component,
    });
  });
});

describe('signatureBase: fields (RFC 9421 section 2.1)', () => {
  it('lowercases the name, trims values, joins repeated lines with `, `, keeps an empty value', () => {
    const req = request({
      headers: { 'X-Multi': ['  a ', 'b\t'], 'Cache-Control': ' max-age=60 ', 'x-empty': '' },
    });
    expect(signatureBase(['x-multi', 'cache-control', 'x-empty'], req, {})).toBe(
      '"x-multi": a, b\n"cache-control": max-age=60\n"x-empty": \n"@signature-params": ("x-multi" "cache-control" "x-empty")',
    );
  });

  it('replaces obsolete line folding with one space', () => {
    expect(line('x-folded', request({ headers: { 'x-folded': 'a\r\n  b' } }))).toBe('"x-folded": a b');
  });

  it('reads WHATWG Headers', () => {
    const headers = new Headers({ 'Content-Type': 'application/json' });
    expect(line('content-type', request({ headers }))).toBe('"content-type": application/json');
  });

  it.each([
    ['a line feed (a forged base line)', 'x\n"@method": GET'],
    ['a carriage return', 'x\ry'],
    ['a NUL', 'x\u0000'],
    ['non-ascii', 'café'],
  ])('refuses a value with %s', (_name, value) => {
    expect(buildSignatureBase(['x-evil'], request({ headers: { 'x-evil': value } }), new Map())).toEqual({
      failure: 'invalid_component_value',
      component: 'x-evil',
    });
  });

  it('names an absent field', () => {
    expect(buildSignatureBase(['content-digest'], request(), new Map())).toEqual({
      failure: 'component_absent',
      component: 'content-digest',
    });
  });
});

describe('signatureBase: component list and parameters', () => {
  it.each([
    ['@signature-params', 'unsupported_component'],
    ['@status', 'unsupported_component'],
    ['@query-param', 'unsupported_component'],
    ['Content-Type', 'unsupported_component'],
    ['two words', 'unsupported_component'],
    ['', 'unsupported_component'],
  ])('refuses component `%s`', (component, failure) => {
    expect(buildSignatureBase([component], request(), new Map())).toEqual({ failure, component });
  });

  it('refuses a component listed twice', () => {
    expect(buildSignatureBase(['@method', '@method'], request(), new Map())).toEqual({
      failure: 'duplicate_component',
      component: '@method',
    });
  });

  it('serializes parameters in the given order, strings quoted and escaped', () => {
    const base = signatureBase(['@method'], request(), { keyid: 'a"b', created: 5, nonce: 'n', alg: 'ed25519' });
    expect(base).toBe(
      '"@method": POST\n"@signature-params": ("@method");keyid="a\\"b";created=5;nonce="n";alg="ed25519"',
    );
  });

  it('throws invalid_request for what cannot be signed', () => {
    expect(() => signatureBase(['content-digest'], request(), {})).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => signatureBase(['@method'], request(), { created: 1.5 })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() => signatureBase(['@method'], request(), { nonce: 'line\nbreak' })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });
});
