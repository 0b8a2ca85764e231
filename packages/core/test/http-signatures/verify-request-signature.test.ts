import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeBase64 } from '../../src/encoding/base64.ts';
import { encodeBase64Url } from '../../src/encoding/base64url.ts';
import { contentDigest } from '../../src/http-signatures/content-digest.ts';
import type { SignableRequest } from '../../src/http-signatures/http-request.ts';
import { signRequest } from '../../src/http-signatures/sign-request.ts';
import type { RequestSignatureResult } from '../../src/http-signatures/request-signature-result.ts';
import type { RequestKeyResolver } from '../../src/http-signatures/verify-request-signature.ts';
import { verifyRequestSignature } from '../../src/http-signatures/verify-request-signature.ts';
import type { TestKey } from './fixtures.ts';
import { AGENT, BODY, NOW, OTHER_AGENT, TARGET, makeKey, plainRequest, signRaw } from './fixtures.ts';

let agent: TestKey;
let other: TestKey;
let resolve: RequestKeyResolver;
const lookups: string[] = [];

beforeAll(async () => {
  agent = await makeKey(AGENT);
  other = await makeKey(OTHER_AGENT);
  const registered = new Map([
    [AGENT, agent.jwk],
    [OTHER_AGENT, other.jwk],
  ]);
  resolve = (keyid) => {
    lookups.push(keyid);
    return registered.get(keyid);
  };
});

const PROFILE = ['@method', '@target-uri', 'content-digest'];
const innerList = (params: string, components: readonly string[] = PROFILE): string =>
  `(${components.map((c) => `"${c}"`).join(' ')})${params}`;
const goodParams = (created = NOW): string => `;created=${created};nonce="n-1";keyid="${AGENT}";alg="ed25519"`;

async function signed(options: { created?: number; nonce?: string; request?: SignableRequest } = {}) {
  const request = options.request ?? plainRequest();
  const headers = await signRequest(request, agent.signer, {
    created: options.created ?? NOW,
    nonce: options.nonce ?? 'n-1',
  });
  return { ...request, headers: { ...(request.headers as Record<string, string>), ...headers } };
}

const verify = (request: SignableRequest, now = NOW): Promise<RequestSignatureResult> =>
  verifyRequestSignature(request, resolve, now, { windowSeconds: 300, requiredComponents: PROFILE });

function withHeaders(request: SignableRequest, headers: Record<string, string | undefined>): SignableRequest {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...(request.headers as Record<string, string>), ...headers })) {
    if (value !== undefined) merged[name] = value;
  }
  return { ...request, headers: merged };
}

function sigBytes(request: SignableRequest): Uint8Array {
  const field = (request.headers as Record<string, string>).signature!;
  return Uint8Array.from(atob(field.slice('sig1=:'.length, -1)), (c) => c.charCodeAt(0));
}

describe('verifyRequestSignature: the happy path', () => {
  it('accepts a request signed by the agent and returns the facts the server records', async () => {
    expect(await verify(await signed())).toEqual({
      status: 'valid',
      label: 'sig1',
      keyid: AGENT,
      created: NOW,
      nonce: 'n-1',
      components: PROFILE,
      targetUris: [TARGET],
    });
  });

  it('accepts any label, alg absent, a tag, and an async resolver', async () => {
    const request = await signRaw(agent, innerList(`;created=${NOW};nonce="n";keyid="${AGENT}";tag="aar"`), PROFILE, {
      label: 'my-agent.sig',
    });
    const result = await verifyRequestSignature(request, async (id) => (id === AGENT ? agent.jwk : undefined), NOW);
    expect(result).toMatchObject({ status: 'valid', label: 'my-agent.sig' });
  });

  it('accepts headers under any case, repeated lines joined, and WHATWG Headers', async () => {
    const request = await signed();
    const h = request.headers;
    const upper = {
      ...request,
      headers: {
        'Signature-Input': h['signature-input'],
        SIGNATURE: h.signature,
        'Content-Digest': h['content-digest'],
      },
    };
    expect((await verify(upper)).status).toBe('valid');
    expect((await verify({ ...request, headers: new Headers(h) })).status).toBe('valid');
  });

  it('accepts the same URL spelled differently by the server (host case, default port)', async () => {
    const request = await signed();
    expect((await verify({ ...request, url: 'https://AAR.example:443/v1/runtime/authorize' })).status).toBe('valid');
  });

  it('reports a request with no signature at all as missing', async () => {
    expect(await verify(plainRequest())).toEqual({ status: 'missing', failure: 'missing_signature' });
    expect(await verify(withHeaders(plainRequest(), { 'signature-input': '', signature: '' }))).toMatchObject({
      status: 'missing',
    });
  });
});

describe('verifyRequestSignature: signatures (SECURITY.md)', () => {
  it.each([
    ['63 bytes', (s: Uint8Array) => `sig1=:${encodeBase64(s.subarray(0, 63))}:`, 'malformed_signature'],
    ['65 bytes', (s: Uint8Array) => `sig1=:${encodeBase64(Uint8Array.of(...s, 0))}:`, 'malformed_signature'],
    ['all zeros', () => `sig1=:${encodeBase64(new Uint8Array(64))}:`, 'signature_mismatch'],
    ['S + L (a malleated copy)', (s: Uint8Array) => `sig1=:${encodeBase64(addL(s))}:`, 'signature_mismatch'],
    ['unpadded base64', (s: Uint8Array) => `sig1=:${encodeBase64(s).replace(/=+$/, '')}:`, 'malformed_signature'],
    ['base64url', (s: Uint8Array) => `sig1=:${encodeBase64Url(s)}:`, 'malformed_signature'],
    ['a string, not bytes', (s: Uint8Array) => `sig1="${encodeBase64(s)}"`, 'malformed_signature'],
    ['parameters on the signature', (s: Uint8Array) => `sig1=:${encodeBase64(s)}:;x=1`, 'malformed_signature'],
    ['trailing garbage', (s: Uint8Array) => `sig1=:${encodeBase64(s)}:AA`, 'malformed_signature'],
  ])('refuses a signature of %s', async (_name, make, failure) => {
    const request = await signed();
    const result = await verify(withHeaders(request, { signature: make(sigBytes(request)) }));
    expect(result).toMatchObject({ status: 'invalid', failure });
  });

  it('refuses base64url even when it differs from base64 (a signature holding + or /)', async () => {
    for (let i = 0; ; i++) {
      const request = await signed({ nonce: `n-${i}` });
      const bytes = sigBytes(request);
      if (!/[+/]/.test(encodeBase64(bytes))) continue;
      expect((await verify(request)).status).toBe('valid');
      const url = withHeaders(request, { signature: `sig1=:${encodeBase64Url(bytes)}==:` });
      expect(await verify(url)).toMatchObject({ status: 'invalid', failure: 'malformed_signature' });
      break;
    }
  });

  it.each([
    ['none', '"none"'],
    ['HS256', '"HS256"'],
    ['ES256', '"ES256"'],
    ['EdDSA (the JOSE name)', '"EdDSA"'],
    ['Ed25519 in another case', '"Ed25519"'],
    ['a token, not a string', 'ed25519'],
    ['a boolean', '?1'],
  ])('refuses alg %s, even over an otherwise valid signature', async (_name, alg) => {
    const request = await signRaw(agent, innerList(`;created=${NOW};nonce="n";keyid="${AGENT}";alg=${alg}`), PROFILE);
    expect(await verify(request)).toMatchObject({ status: 'invalid', failure: 'alg_mismatch', keyid: AGENT });
  });

  it('refuses an unknown keyid and a path-like one, looking them up only in the resolver', async () => {
    for (const keyid of [
      'ns:entity:agent:nobody',
      '../x',
      '../../.well-known/jwks.json',
      'https://evil.example/jwks',
    ]) {
      const request = await signRaw(agent, innerList(`;created=${NOW};nonce="n";keyid="${keyid}"`), PROFILE);
      lookups.length = 0;
      expect(await verify(request)).toMatchObject({ status: 'invalid', failure: 'unknown_key', keyid });
      expect(lookups).toEqual([keyid]);
    }
  });

  it('refuses a signature made with this agent key but naming another agent', async () => {
    const request = await signRaw(agent, innerList(`;created=${NOW};nonce="n";keyid="${OTHER_AGENT}"`), PROFILE);
    expect(await verify(request)).toMatchObject({
      status: 'invalid',
      failure: 'signature_mismatch',
      keyid: OTHER_AGENT,
    });
  });

  it('refuses a key the resolver returns that is not a public Ed25519 JWK', async () => {
    const request = await signed();
    for (const bad of [
      { ...agent.jwk, d: 'AAAA' },
      { ...agent.jwk, crv: 'X25519' },
      { kty: 'oct', k: 'AAAA' },
      'key',
    ]) {
      const result = await verifyRequestSignature(request, () => bad as never, NOW);
      expect(result).toMatchObject({ status: 'invalid', failure: 'invalid_key' });
    }
  });

  it('lets a resolver failure propagate: a store error is not a verdict', async () => {
    const request = await signed();
    const failing = () => Promise.reject(new Error('database down'));
    await expect(verifyRequestSignature(request, failing, NOW)).rejects.toThrow('database down');
  });
});

describe('verifyRequestSignature: labels and structure', () => {
  it('refuses a label present in only one of the two fields', async () => {
    const request = await signed();
    const signature = (request.headers as Record<string, string>).signature!;
    const renamed = withHeaders(request, { signature: signature.replace('sig1=', 'sig2=') });
    expect(await verify(renamed)).toMatchObject({ status: 'invalid', failure: 'label_mismatch' });
    expect(await verify(withHeaders(request, { signature: undefined }))).toMatchObject({ failure: 'label_mismatch' });
    expect(await verify(withHeaders(request, { 'signature-input': undefined }))).toMatchObject({
      failure: 'label_mismatch',
    });
  });

  it('refuses several signatures', async () => {
    const request = await signed();
    const h = request.headers as Record<string, string>;
    const doubled = withHeaders(request, {
      'signature-input': `${h['signature-input']}, ${h['signature-input']!.replace('sig1=', 'sig2=')}`,
      signature: `${h.signature}, ${h.signature!.replace('sig1=', 'sig2=')}`,
    });
    expect(await verify(doubled)).toMatchObject({ status: 'invalid', failure: 'multiple_signatures' });
  });

  it('refuses a duplicate label, across field lines too (never "last one wins")', async () => {
    const request = await signed();
    const h = request.headers as Record<string, string>;
    const evil = h['signature-input']!.replace(`created=${NOW}`, `created=${NOW - 1000}`);
    const twoLines = { ...request, headers: { ...h, 'signature-input': [evil, h['signature-input']!] } };
    expect(await verify(twoLines)).toMatchObject({ status: 'invalid', failure: 'malformed_signature_input' });
    const oneLine = withHeaders(request, { 'signature-input': `${evil}, ${h['signature-input']}` });
    expect(await verify(oneLine)).toMatchObject({ status: 'invalid', failure: 'malformed_signature_input' });
  });

  it.each([
    ['a duplicate parameter', innerList(`${goodParams()};created=${NOW - 9999}`), 'malformed_signature_input'],
    ['an item instead of an inner list', `"@method";created=${NOW}`, 'malformed_signature_input'],
    ['a token component', `(@method "@target-uri" "content-digest")${goodParams()}`, 'malformed_signature_input'],
    [
      'a component parameter',
      `("@method" "@target-uri" "content-digest";sf)${goodParams()}`,
      'malformed_signature_input',
    ],
    ['an unknown parameter', innerList(`${goodParams()};foo=1`), 'unsupported_parameter'],
    ['a tag that is not a string', innerList(`${goodParams()};tag=1`), 'unsupported_parameter'],
    ['no keyid', innerList(`;created=${NOW};nonce="n"`), 'missing_keyid'],
    ['a keyid token', innerList(`;created=${NOW};nonce="n";keyid=agent`), 'invalid_keyid'],
    ['an empty keyid', innerList(`;created=${NOW};nonce="n";keyid=""`), 'invalid_keyid'],
    ['no created', innerList(`;nonce="n";keyid="${AGENT}"`), 'missing_created'],
    ['no nonce', innerList(`;created=${NOW};keyid="${AGENT}";alg="ed25519"`), 'missing_nonce'],
    ['a nonce token', innerList(`;created=${NOW};nonce=abc;keyid="${AGENT}"`), 'invalid_nonce'],
    ['an empty nonce', innerList(`;created=${NOW};nonce="";keyid="${AGENT}"`), 'invalid_nonce'],
    [
      'a 257-character nonce',
      innerList(`;created=${NOW};nonce="${'n'.repeat(257)}";keyid="${AGENT}"`),
      'invalid_nonce',
    ],
    ['a negative created', innerList(`;created=-${NOW};nonce="n";keyid="${AGENT}"`), 'invalid_created'],
    ['created -0', innerList(`;created=-0;nonce="n";keyid="${AGENT}"`), 'invalid_created'],
    ['a float created', innerList(`;created=${NOW}.5;nonce="n";keyid="${AGENT}"`), 'invalid_created'],
    ['created 1.0', innerList(`;created=${NOW}.0;nonce="n";keyid="${AGENT}"`), 'invalid_created'],
    ['a string created', innerList(`;created="${NOW}";nonce="n";keyid="${AGENT}"`), 'invalid_created'],
    ['a +-prefixed created', innerList(`;created=+${NOW};nonce="n";keyid="${AGENT}"`), 'malformed_signature_input'],
    [
      'a 16-digit created',
      innerList(`;created=1${'0'.repeat(15)};nonce="n";keyid="${AGENT}"`),
      'malformed_signature_input',
    ],
    ['a float expires', innerList(`${goodParams()};expires=${NOW + 10}.5`), 'invalid_expires'],
    ['a component listed twice', innerList(goodParams(), [...PROFILE, '@method']), 'duplicate_component'],
    ['an unsupported component', innerList(goodParams(), [...PROFILE, '@request-response']), 'unsupported_component'],
    ['covering @signature-params', innerList(goodParams(), [...PROFILE, '@signature-params']), 'unsupported_component'],
    ['a covered field the request lacks', innerList(goodParams(), [...PROFILE, 'x-absent']), 'component_absent'],
  ])('refuses %s', async (_name, list, failure) => {
    const request = await signed();
    expect(await verify(withHeaders(request, { 'signature-input': `sig1=${list}` }))).toMatchObject({
      status: 'invalid',
      failure,
    });
  });

  it('refuses a correctly signed base that covers a forged header line', async () => {
    const request = withHeaders(await signed(), { 'x-note': 'a\n"@method": GET' });
    const forged = withHeaders(request, {
      'signature-input': `sig1=${innerList(goodParams(), [...PROFILE, 'x-note'])}`,
    });
    expect(await verify(forged)).toMatchObject({ status: 'invalid', failure: 'invalid_component_value' });
  });

  it('never throws and never accepts garbage fields', () => {
    return fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 120 }), fc.string({ maxLength: 120 }), async (input, signature) => {
        const request = withHeaders(plainRequest(), { 'signature-input': input, signature });
        const result = await verify(request);
        expect(['missing', 'invalid']).toContain(result.status);
      }),
      { numRuns: 500 },
    );
  });

  it('never accepts a mutated Signature-Input', async () => {
    const request = await signed();
    const original = (request.headers as Record<string, string>)['signature-input']!;
    await fc.assert(
      fc.asyncProperty(fc.nat(original.length - 1), fc.string({ minLength: 1, maxLength: 1 }), async (at, char) => {
        fc.pre(original[at] !== char);
        const mutated = original.slice(0, at) + char + original.slice(at + 1);
        const result = await verify(withHeaders(request, { 'signature-input': mutated }));
        expect(result.status).not.toBe('valid');
        expect(result.status).not.toBe('stale');
      }),
      { numRuns: 300 },
    );
  });
});

describe('verifyRequestSignature: covered components', () => {
  it.each([['@target-uri'], ['content-digest'], ['@method']])(
    'refuses a signature that omits %s, however valid',
    async (omitted) => {
      const components = PROFILE.filter((c) => c !== omitted);
      const request = await signRaw(agent, innerList(goodParams(), components), components);
      expect(await verify(request)).toMatchObject({
        status: 'invalid',
        failure: 'missing_component',
        component: omitted,
      });
    },
  );

  it('defaults to the CONTRACT components: a signature over @method alone is refused', async () => {
    const request = await signRaw(agent, innerList(goodParams(), ['@method']), ['@method']);
    expect(await verifyRequestSignature(request, resolve, NOW)).toMatchObject({
      failure: 'missing_component',
      component: '@target-uri',
    });
  });

  it('refuses a body changed after signing', async () => {
    const request = await signed();
    const changed = { ...request, body: BODY.replace('12.5', '1250') };
    expect(await verify(changed)).toMatchObject({ status: 'invalid', failure: 'digest_mismatch' });
    const redigested = withHeaders(changed, { 'content-digest': contentDigest(changed.body) });
    expect(await verify(redigested)).toMatchObject({ status: 'invalid', failure: 'signature_mismatch' });
  });

  it('refuses a missing or unsupported Content-Digest', async () => {
    const request = await signed();
    expect(await verify(withHeaders(request, { 'content-digest': undefined }))).toMatchObject({
      failure: 'component_absent',
      component: 'content-digest',
    });
    expect(await verify(withHeaders(request, { 'content-digest': 'md5=:AAAA:' }))).toMatchObject({
      failure: 'unsupported_digest',
    });
  });

  it.each([
    ['another path', { url: 'https://aar.example/v1/runtime/outcomes' }],
    ['another host', { url: 'https://evil.example/v1/runtime/authorize' }],
    ['a query added', { url: `${TARGET}?amount=1` }],
    ['http instead of https', { url: TARGET.replace('https:', 'http:') }],
    ['another method', { method: 'PUT' }],
    ['the method in lowercase', { method: 'post' }],
  ])('refuses the request replayed with %s', async (_name, change) => {
    const request = await signed();
    expect(await verify({ ...request, ...change })).toMatchObject({ status: 'invalid', failure: 'signature_mismatch' });
  });
});

describe('verifyRequestSignature: freshness (window 300 s, both directions)', () => {
  it.each([
    ['exactly 300 s old', NOW - 300, 'valid', undefined],
    ['exactly 300 s ahead', NOW + 300, 'valid', undefined],
    ['301 s old', NOW - 301, 'stale', 'too_old'],
    ['301 s ahead', NOW + 301, 'stale', 'created_in_future'],
    ['in milliseconds', NOW * 1000, 'stale', 'created_in_future'],
    ['zero (1970)', 0, 'stale', 'too_old'],
  ])('created %s is %s', async (_name, created, status, failure) => {
    const result = await verify(await signed({ created }));
    expect(result.status).toBe(status);
    expect(result.failure).toBe(failure);
    expect(result.created).toBe(created);
  });

  it('judges in whole seconds, inclusively: a fractional now is floored', async () => {
    // CONTRACT section 7: created = now - 300 is fresh whatever the clock's fraction; now - 301 is stale.
    const old = await signed({ created: NOW - 300 });
    expect(await verify(old, NOW + 0.999)).toMatchObject({ status: 'valid' });
    expect(await verify(old, NOW + 1)).toMatchObject({ status: 'stale', failure: 'too_old' });
    const ahead = await signed({ created: NOW + 300 });
    expect(await verify(ahead, NOW + 0.5)).toMatchObject({ status: 'valid' });
    expect(await verify(ahead, NOW - 0.5)).toMatchObject({ status: 'stale', failure: 'created_in_future' });
  });

  it('is symmetric and inclusive for every window and offset (property)', async () => {
    const request = await signed({ created: NOW });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3600 }),
        fc.integer({ min: -4000, max: 4000 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        async (windowSeconds, offset, fraction) => {
          const result = await verifyRequestSignature(request, resolve, NOW + offset + fraction, {
            windowSeconds,
            requiredComponents: PROFILE,
          });
          expect(result.status).toBe(Math.abs(offset) <= windowSeconds ? 'valid' : 'stale');
        },
      ),
      { numRuns: 60 },
    );
  });

  it('honours a configured window', async () => {
    const request = await signed({ created: NOW - 60 });
    const result = await verifyRequestSignature(request, resolve, NOW, { windowSeconds: 30 });
    expect(result).toMatchObject({ status: 'stale', failure: 'too_old' });
  });

  it('refuses an expires in the past or now, accepts one in the future', async () => {
    for (const [expires, status] of [
      [NOW - 1, 'stale'],
      [NOW, 'stale'],
      [NOW + 1, 'valid'],
    ] as const) {
      const request = await signRaw(agent, innerList(`${goodParams()};expires=${expires}`), PROFILE);
      expect(await verify(request)).toMatchObject({ status, ...(status === 'stale' ? { failure: 'expired' } : {}) });
    }
  });

  it('judges time only after the signature: a forged stale request is invalid, not stale', async () => {
    const request = await signed({ created: NOW - 1000 });
    const forged = withHeaders(request, { signature: `sig1=:${encodeBase64(new Uint8Array(64))}:` });
    expect(await verify(forged)).toMatchObject({ status: 'invalid', failure: 'signature_mismatch' });
  });

  it('throws internal for options that are not a clock or a window', async () => {
    const request = await signed();
    for (const [now, windowSeconds] of [
      [Number.NaN, 300],
      [-1, 300],
      [NOW, -1],
      [NOW, 1.5],
    ]) {
      await expect(verifyRequestSignature(request, resolve, now!, { windowSeconds })).rejects.toMatchObject({
        code: 'internal',
      });
    }
  });
});

/** S + L: the second half of the signature plus the group order, the classic malleability. */
function addL(signature: Uint8Array): Uint8Array {
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i]!);
  s += L;
  const out = Uint8Array.from(signature);
  for (let i = 32; i < 64; i++) {
    out[i] = Number(s & 0xffn);
    s >>= 8n;
  }
  return out;
}

describe('verifyRequestSignature: target URIs from configuration', () => {
  const PUBLIC = 'https://pay.example.com/v1/runtime/authorize';
  const OTHER = 'https://other.example/v1/runtime/authorize';
  const verifyFor = (request: SignableRequest, targetUris: readonly string[]) =>
    verifyRequestSignature(request, resolve, NOW, { requiredComponents: PROFILE, targetUris });

  it('verifies against the candidates, never against request.url', async () => {
    const request = await signed({ request: plainRequest({ url: PUBLIC }) });
    // request.url says where the bytes arrived (plain http behind a proxy); the candidates say what was signed.
    const arrived = { ...request, url: 'http://10.0.0.7:8080/v1/runtime/authorize' };
    expect(await verifyFor(arrived, [PUBLIC])).toMatchObject({ status: 'valid', targetUris: [PUBLIC] });
    expect(await verifyFor(request, [OTHER])).toMatchObject({
      status: 'invalid',
      failure: 'signature_mismatch',
      targetUris: [OTHER],
    });
  });

  it('verifies when one of several candidates matches, and names the one that did', async () => {
    const request = await signed({ request: plainRequest({ url: PUBLIC }) });
    const result = await verifyFor(request, [OTHER, 'https://PAY.example.com:443/v1/runtime/authorize']);
    expect(result).toMatchObject({ status: 'valid', targetUris: [PUBLIC] });
  });

  it('names every candidate it tried when none verifies', async () => {
    const request = await signed({ request: plainRequest({ url: 'https://attacker.example/v1/runtime/authorize' }) });
    const result = await verifyFor(request, [PUBLIC, OTHER]);
    expect(result).toMatchObject({ status: 'invalid', failure: 'signature_mismatch', targetUris: [PUBLIC, OTHER] });
  });

  it('keeps the target URI of a stale signature (authentic, outside the window)', async () => {
    const request = await signed({ created: NOW - 301, request: plainRequest({ url: PUBLIC }) });
    expect(await verifyFor(request, [OTHER, PUBLIC])).toMatchObject({
      status: 'stale',
      failure: 'too_old',
      targetUris: [PUBLIC],
    });
  });

  it('skips a candidate without a target URI and still tries the others', async () => {
    const request = await signed({ request: plainRequest({ url: PUBLIC }) });
    expect(await verifyFor(request, ['not a url', PUBLIC])).toMatchObject({ status: 'valid' });
    expect(await verifyFor(request, ['not a url'])).toMatchObject({
      status: 'invalid',
      failure: 'invalid_component_value',
      component: '@target-uri',
    });
  });

  it('throws internal for an empty or oversized candidate list', async () => {
    const request = await signed();
    await expect(verifyFor(request, [])).rejects.toMatchObject({ code: 'internal' });
    await expect(
      verifyFor(
        request,
        Array.from({ length: 17 }, () => PUBLIC),
      ),
    ).rejects.toMatchObject({
      code: 'internal',
    });
  });
});
