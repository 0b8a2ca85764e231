import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHarness, type Harness } from './gateway-harness.ts';

const PAN = '4111111111111111';
let h: Harness;
beforeAll(async () => {
  h = await buildHarness({ config: { bodyLimit: 2048 }, captureLogs: true });
});
afterAll(async () => {
  await h.close();
});

async function post(payload: string | Buffer, contentType: string | null = 'application/json') {
  // light-my-request sends application/json unless the header is explicitly undefined
  const headers: Record<string, string | undefined> = {
    ...h.auth(h.tokens.runtime),
    'content-type': contentType ?? undefined,
  };
  return h.app.inject({ method: 'POST', url: '/test/free', headers, payload });
}

function codeOf(res: { json: () => unknown }): unknown {
  return (res.json() as { code: unknown }).code;
}

describe('strict JSON bodies', () => {
  it('accepts a JSON object, also under a +json media type and with charset utf-8', async () => {
    expect((await post('{"a":1}')).json()).toEqual({ body: { a: 1 } });
    expect((await post('{"a":1}', 'application/merge-patch+json')).statusCode).toBe(200);
    expect((await post('{"a":1}', 'application/json; charset=UTF-8')).statusCode).toBe(200);
  });

  it('refuses a body over the limit with 413', async () => {
    const res = await post(JSON.stringify({ a: 'x'.repeat(3000) }));
    expect(res.statusCode).toBe(413);
    expect(codeOf(res)).toBe('payload_too_large');
  });

  it('refuses other media types with 415, text/plain included', async () => {
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const res = await post('{"a":1}', type);
      expect(res.statusCode, type).toBe(415);
      expect(codeOf(res)).toBe('unsupported_media_type');
    }
    const untyped = await post('{"a":1}', null);
    expect(untyped.statusCode).toBe(415);
  });

  it('refuses JSON announced in another charset', async () => {
    const res = await post('{"a":1}', 'application/json; charset=latin1');
    expect(res.statusCode).toBe(415);
  });

  it('refuses duplicate keys, naming the key', async () => {
    const res = await post('{"nested":{"amount":1,"amount":1000}}');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_json', errors: [{ path: '/nested/amount' }] });
  });

  it('refuses a NUL character in any string or key, naming its path; an escaped backslash before u0000 is text', async () => {
    const inValue = await post('{"items":[{"title":"ok"},{"title":"a\\u0000b"}]}');
    expect(inValue.statusCode).toBe(400);
    expect(inValue.json()).toMatchObject({ code: 'invalid_request', errors: [{ path: '/items/1/title' }] });
    const inKey = await post('{"a\\u0000":1}');
    expect(inKey.json()).toMatchObject({ code: 'invalid_request', errors: [{ path: '/a\u0000' }] });
    expect((await post('{"a":"\\\\u0000"}')).json()).toEqual({ body: { a: '\\u0000' } });
  });

  it('refuses a body that is not an object', async () => {
    for (const body of ['[1,2]', '"text"', '42', 'null', 'true']) {
      const res = await post(body);
      expect(res.statusCode, body).toBe(400);
      expect(res.json(), body).toMatchObject({ code: 'invalid_json', errors: [{ path: '' }] });
    }
  });

  it('refuses an empty JSON body on POST', async () => {
    const res = await post('');
    expect(res.statusCode).toBe(400);
    expect(codeOf(res)).toBe('invalid_json');
  });

  it('refuses invalid UTF-8 and a byte order mark', async () => {
    const invalid = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const res = await post(invalid);
    expect(res.statusCode).toBe(400);
    expect(codeOf(res)).toBe('invalid_json');
    const bom = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]));
    expect(bom.statusCode).toBe(400);
  });

  it('refuses a card number anywhere, never echoing or logging it', async () => {
    const bodies = [
      `{"card":"${PAN}"}`,
      `{"deep":{"list":[1,{"n":${PAN}}]}}`,
      `{"note":"pay with 4111 1111 1111 1111 please"}`,
    ];
    for (const body of bodies) {
      const res = await post(body);
      expect(res.statusCode, body).toBe(400);
      expect(codeOf(res)).toBe('pan_refused');
      expect(res.body).not.toMatch(/4111[ -]?1111/);
    }
    const deep = await post(`{"deep":{"list":[1,{"n":${PAN}}]}}`);
    expect(deep.json()).toMatchObject({ errors: [{ path: '/deep/list/1/n' }] });
    expect(h.logs.join('')).not.toMatch(/4111[ -]?1111/);
    expect(h.logs.join('')).toContain('pan_refused');
  });
});
