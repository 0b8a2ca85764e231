import { describe, expect, it } from 'vitest';
import { encodeBase64Url } from '../../src/encoding/base64url.ts';
import {
  AP2_MAX_NESTING,
  mandateDigest,
  verifyAp2Presentation,
  type Ap2VerifyOptions,
  type MandateErrorCode,
} from '../../src/mandates/index.ts';
import { AP2_DIR, ap2SchemaValidator } from './support/ap2-vectors.ts';
import {
  AUDIENCE,
  ISSUER,
  NOW,
  OPEN_PAYMENT_FRAME,
  agentProviderChain,
  chain,
  closedPaymentContent,
  issueHop,
  kbHop,
  newKey,
  openPaymentContent,
  parties,
  signText,
  userCredentialChain,
  type Parties,
  type TestKey,
} from './support/build-chain.ts';

// Full AP2 chains built here with @sd-jwt/core and fresh keys, accepted; then each mutation an attacker (or a broken
// client) can make, refused with its code and the JSON pointer of the part at fault. Every mandate content the
// verifier accepts is validated against the AP2 JSON Schemas (../shared/vectors/ap2, through the injected validator).

const p: Parties = await parties();

function options(extra: Partial<Ap2VerifyOptions> = {}): Ap2VerifyOptions {
  return {
    issuers: p.issuers,
    nowSeconds: NOW,
    audiences: [AUDIENCE],
    ...(AP2_DIR === undefined ? {} : { validateContent: ap2SchemaValidator() }),
    ...extra,
  };
}

async function codes(
  presentation: string,
  extra: Partial<Ap2VerifyOptions> = {},
): Promise<Array<[MandateErrorCode, string]>> {
  const result = await verifyAp2Presentation(presentation, options(extra));
  return result.ok ? [] : result.errors.map((e) => [e.code, e.path]);
}

const b64json = (value: unknown): string => encodeBase64Url(new TextEncoder().encode(JSON.stringify(value)));
const unb64 = (text: string): unknown => JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));

/** Re-signs (or not) the JWS of a hop after `edit` changed its header and payload. */
async function editHop(
  hop: string,
  edit: (header: Record<string, unknown>, payload: Record<string, unknown>) => void,
  key?: TestKey,
): Promise<string> {
  const [jws = '', ...rest] = hop.split('~');
  const [h = '', pl = '', sig = ''] = jws.split('.');
  const header = unb64(h) as Record<string, unknown>;
  const payload = unb64(pl) as Record<string, unknown>;
  edit(header, payload);
  const input = `${b64json(header)}.${b64json(payload)}`;
  const signature = key === undefined ? sig : await signText(key, input);
  return [`${input}.${signature}`, ...rest].join('~');
}

function disclosures(hop: string): string[] {
  return hop.split('~').slice(1, -1);
}

function withDisclosures(hop: string, list: string[]): string {
  return [hop.split('~')[0], ...list, ''].join('~');
}

describe('accepted chains', () => {
  it('trusted agent provider: issuer -> agent, open payment ~~ closed payment', async () => {
    const { open, presentation } = await agentProviderChain(p);
    const result = await verifyAp2Presentation(presentation, options());
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    const v = result.value;
    expect(v.issuer).toBe(ISSUER);
    expect(v.digest).toBe(mandateDigest(presentation));
    expect(v.openPart).toBe(open);
    expect(v.hops.map((h) => [h.index, h.typ, h.alg])).toEqual([
      [0, 'dc+sd-jwt', 'ES256'],
      [1, 'kb+sd-jwt', 'ES256'],
    ]);
    expect(v.hops[0]?.signerKey).toMatchObject({ x: p.issuer.publicJwk.x });
    expect(v.hops[1]?.signerKey).toMatchObject({ x: p.agent.publicJwk.x });
    expect(v.open.payment?.content).toEqual(openPaymentContent(p.agent.publicJwk));
    expect(v.closed.payment?.content).toEqual(closedPaymentContent());
    expect(v.nonces).toEqual([{ keyThumbprint: expect.any(String), nonce: v.hops[1]?.nonce, hop: 1 }]);
    expect(v.expiresAt).toBe(NOW + 3600);
  });

  it('the open mandate alone is accepted, without openPart', async () => {
    const { open } = await agentProviderChain(p);
    const result = await verifyAp2Presentation(open, options());
    expect(result).toMatchObject({ ok: true });
    if (result.ok) {
      expect(result.value.openPart).toBeUndefined();
      expect(result.value.nonces).toEqual([]);
    }
  });

  it('user credential: issuer -> user device (top-level cnf) -> agent', async () => {
    const { presentation, hops } = await userCredentialChain(p);
    const result = await verifyAp2Presentation(presentation, options());
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    expect(result.value.hops[0]?.payload).toMatchObject({ card_last_four: '4242', cnf: { jwk: p.user.publicJwk } });
    expect(result.value.hops.map((h) => h.signerKey?.x)).toEqual([
      p.issuer.publicJwk.x,
      p.user.publicJwk.x,
      p.agent.publicJwk.x,
    ]);
    expect(result.value.openPart).toBe(`${hops[0]}~${hops[1]}`);
    expect(result.value.nonces.map((n) => n.hop)).toEqual([1, 2]);
    expect(new Set(result.value.nonces.map((n) => n.keyThumbprint)).size).toBe(2);
  });

  it('ES384 and EdDSA issuer keys, and an issuer found by kid alone (no iss)', async () => {
    for (const alg of ['ES384', 'EdDSA'] as const) {
      const issuer = await newKey(alg, `k-${alg}`);
      const open = await issueHop(
        issuer,
        { typ: 'dc+sd-jwt', kid: `k-${alg}` },
        { delegate_payload: [openPaymentContent(p.agent.publicJwk)] },
        OPEN_PAYMENT_FRAME,
      );
      const presentation = chain(open, await kbHop(p.agent, open, [closedPaymentContent()]));
      const result = await verifyAp2Presentation(
        presentation,
        options({ issuers: [...p.issuers, { issuer: 'https://other.example', keys: [issuer.publicJwk] }] }),
      );
      expect(result.ok ? result.value.issuer : result.errors).toBe('https://other.example');
    }
  });

  it('checkTime false accepts an expired chain (offline re-verification of an old evidence pack)', async () => {
    const { presentation } = await agentProviderChain(p);
    expect(await codes(presentation, { nowSeconds: NOW + 7200 })).toEqual([
      ['expired', '/presentation/hops/0/mandates/0/exp'],
    ]);
    expect(await codes(presentation, { nowSeconds: NOW + 7200, checkTime: false })).toEqual([]);
  });
});

describe('refused mutations', () => {
  it('a disclosure altered: disclosure_digest_mismatch, and the next hop no longer covers the hop', async () => {
    const { open, presentation } = await agentProviderChain(p);
    const list = disclosures(open);
    const payee = list.findIndex((d) => JSON.stringify(unb64(d)).includes('merchant_2'));
    const altered = b64json(JSON.parse(JSON.stringify(unb64(list[payee] ?? '')).replace('merchant_2', 'merchant_9')));
    list[payee] = altered;
    const tampered = presentation.replace(open, withDisclosures(open, list));
    expect(await codes(tampered)).toEqual([
      ['disclosure_digest_mismatch', `/presentation/hops/0/disclosures/${payee}`],
      ['sd_hash_mismatch', '/presentation/hops/1/payload/sd_hash'],
    ]);
    // the open mandate alone: the same altered disclosure
    expect(await codes(withDisclosures(open, list))).toEqual([
      ['disclosure_digest_mismatch', `/presentation/hops/0/disclosures/${payee}`],
    ]);
  });

  it('a digest in the signed payload changed: signature_invalid (and its disclosure is orphaned)', async () => {
    const { open } = await agentProviderChain(p);
    const tampered = await editHop(open, (_, payload) => {
      (payload.delegate_payload as Array<Record<string, string>>)[0]!['...'] = mandateDigest('forged');
    });
    const found = await codes(tampered);
    expect(found).toContainEqual(['signature_invalid', '/presentation/hops/0/jws/signature']);
    expect(found.filter(([code]) => code === 'disclosure_digest_mismatch').length).toBeGreaterThan(0);
    // re-signed by the issuer itself, the digest still names no disclosure
    const resigned = await editHop(
      open,
      (_, payload) => {
        (payload.delegate_payload as Array<Record<string, string>>)[0]!['...'] = mandateDigest('forged');
      },
      p.issuer,
    );
    expect((await codes(resigned)).map(([code]) => code)).toEqual(
      expect.arrayContaining(['disclosure_digest_mismatch']),
    );
  });

  it('a disclosure dropped from a bound hop: sd_hash_mismatch', async () => {
    const { open, presentation } = await agentProviderChain(p);
    const list = disclosures(open);
    const payee = list.findIndex((d) => JSON.stringify(unb64(d)).includes('merchant_2'));
    list.splice(payee, 1);
    expect(await codes(presentation.replace(open, withDisclosures(open, list)))).toEqual([
      ['sd_hash_mismatch', '/presentation/hops/1/payload/sd_hash'],
    ]);
  });

  it('a disclosure added (foreign, unreferenced) or duplicated: disclosure_digest_mismatch', async () => {
    const { open } = await agentProviderChain(p);
    const list = disclosures(open);
    const foreign = b64json(['c2FsdHNhbHRzYWx0', { id: 'merchant_evil', name: 'Evil' }]);
    expect(await codes(withDisclosures(open, [...list, foreign]))).toEqual([
      ['disclosure_digest_mismatch', `/presentation/hops/0/disclosures/${list.length}`],
    ]);
    expect(await codes(withDisclosures(open, [...list, list[0] ?? '']))).toEqual([
      ['disclosure_digest_mismatch', `/presentation/hops/0/disclosures/${list.length}`],
    ]);
  });

  it('a key-binding hop signed by another key than the disclosed cnf: key_binding_invalid', async () => {
    const { open } = await agentProviderChain(p);
    const intruder = await newKey();
    const presentation = chain(open, await kbHop(intruder, open, [closedPaymentContent()]));
    expect(await codes(presentation)).toEqual([['key_binding_invalid', '/presentation/hops/1/jws/signature']]);
    // the user device signing the agent's hop in the user-credential chain
    const { hops } = await userCredentialChain(p);
    const forged = chain(hops[0] ?? '', hops[1] ?? '', await kbHop(p.user, hops[1] ?? '', [closedPaymentContent()]));
    expect(await codes(forged)).toEqual([['key_binding_invalid', '/presentation/hops/2/jws/signature']]);
  });

  it('an expired hop or mandate content, or an iat from the future: expired', async () => {
    const past = await agentProviderChain(p, { kb: { extraPayload: { exp: NOW - 1 } } });
    expect(await codes(past.presentation)).toEqual([['expired', '/presentation/hops/1/payload/exp']]);
    const old = await agentProviderChain(p, { open: { exp: NOW } });
    expect(await codes(old.presentation)).toEqual([['expired', '/presentation/hops/0/mandates/0/exp']]);
    const future = await agentProviderChain(p, { kb: { iat: NOW + 61 } });
    expect(await codes(future.presentation)).toEqual([['expired', '/presentation/hops/1/payload/iat']]);
    const skew = await agentProviderChain(p, { kb: { iat: NOW + 60 } });
    expect(await codes(skew.presentation)).toEqual([]);
  });

  it('a time claim outside 1970-9999 (no ISO timestamp could name it): schema_invalid, nothing thrown', async () => {
    const far = await agentProviderChain(p, { open: { exp: 1e15 } });
    expect(await codes(far.presentation)).toEqual([['schema_invalid', '/presentation/hops/0/mandates/0/exp']]);
    const negative = await agentProviderChain(p, { kb: { iat: -1 } });
    expect(await codes(negative.presentation)).toEqual([['schema_invalid', '/presentation/hops/1/payload/iat']]);
  });

  it('a key-binding hop for another audience: audience_mismatch (unless the audience is not checked)', async () => {
    const { presentation } = await agentProviderChain(p, { kb: { aud: 'https://other-verifier.example' } });
    expect(await codes(presentation)).toEqual([['audience_mismatch', '/presentation/hops/1/payload/aud']]);
    // offline re-verification of an evidence pack: the verifier does not know the deployment's audiences
    expect(await codes(presentation, { audiences: [], checkAudience: false, checkTime: false })).toEqual([]);
  });

  it('a key-binding hop without nonce, iat, aud or sd_hash, or not typed kb+sd-jwt: key_binding_invalid', async () => {
    const { open } = await agentProviderChain(p);
    const hop = await kbHop(p.agent, open, [closedPaymentContent()]);
    const bare = await editHop(
      hop,
      (_, payload) => {
        delete payload.nonce;
        delete payload.iat;
        delete payload.aud;
        delete payload.sd_hash;
      },
      p.agent,
    );
    expect(await codes(chain(open, bare))).toEqual([
      ['key_binding_invalid', '/presentation/hops/1/payload/nonce'],
      ['key_binding_invalid', '/presentation/hops/1/payload/iat'],
      ['key_binding_invalid', '/presentation/hops/1/payload/aud'],
      ['key_binding_invalid', '/presentation/hops/1/payload/sd_hash'],
    ]);
    const typed = await kbHop(p.agent, open, [closedPaymentContent()], { typ: 'dc+sd-jwt' });
    expect(await codes(chain(open, typed))).toEqual([['key_binding_invalid', '/presentation/hops/1/header/typ']]);
  });

  it('alg none, an HMAC or an unsupported algorithm: signature_invalid', async () => {
    const { open } = await agentProviderChain(p);
    const [jws = ''] = open.split('~');
    const [h = '', pl = ''] = jws.split('.');
    const none = open.replace(jws, `${b64json({ ...(unb64(h) as object), alg: 'none' })}.${pl}.`);
    expect(await codes(none)).toEqual([
      ['signature_invalid', '/presentation/hops/0/jws/signature'],
      ['signature_invalid', '/presentation/hops/0/header/alg'],
    ]);
    const hs = await editHop(open, (header) => {
      header.alg = 'HS256';
    });
    expect(await codes(hs)).toEqual([['signature_invalid', '/presentation/hops/0/header/alg']]);
    const es512 = await newKey('ES512' as TestKey['alg'], 'issuer-key-1');
    const signed512 = await issueHop(
      es512,
      { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
      { iss: ISSUER, delegate_payload: [openPaymentContent(p.agent.publicJwk)] },
      OPEN_PAYMENT_FRAME,
    );
    expect(await codes(signed512, { issuers: [{ issuer: ISSUER, keys: [es512.publicJwk] }] })).toEqual([
      ['signature_invalid', '/presentation/hops/0/header/alg'],
    ]);
  });

  it('a first hop that names its own key (header jwk / x5c, cnf only): issuer_key_unknown, never trusted', async () => {
    const attacker = await newKey();
    const header = { typ: 'dc+sd-jwt', jwk: attacker.publicJwk, x5c: ['MIIB'] };
    const content = { delegate_payload: [openPaymentContent(p.agent.publicJwk)], cnf: { jwk: attacker.publicJwk } };
    const self = await issueHop(attacker, header, content, OPEN_PAYMENT_FRAME);
    expect(await codes(self, { issuers: [] })).toEqual([['issuer_key_unknown', '/presentation/hops/0/header/kid']]);
    expect(await codes(self)).toEqual([['issuer_key_unknown', '/presentation/hops/0/header/kid']]);
    // naming a configured issuer and kid, signed by its own key: the configured key does not verify it
    const claimed = await issueHop(
      attacker,
      { ...header, kid: 'issuer-key-1' },
      { ...content, iss: ISSUER },
      OPEN_PAYMENT_FRAME,
    );
    expect(await codes(claimed)).toEqual([['signature_invalid', '/presentation/hops/0/jws/signature']]);
    const unknownIss = await issueHop(
      attacker,
      header,
      { ...content, iss: 'https://evil.example' },
      OPEN_PAYMENT_FRAME,
    );
    expect(await codes(unknownIss)).toEqual([['issuer_key_unknown', '/presentation/hops/0/header/kid']]);
  });

  it('bad base64 in the JWS or in a disclosure', async () => {
    const { open } = await agentProviderChain(p);
    const [jws = ''] = open.split('~');
    const [h = '', pl = '', sig = ''] = jws.split('.');
    expect(await codes(open.replace(jws, `${h}.${pl.slice(0, 10)}*${pl.slice(11)}.${sig}`))).toEqual([
      ['schema_invalid', '/presentation/hops/0/jws'],
    ]);
    expect(await codes(open.replace(jws, `${h}.${pl}.${sig.slice(0, -2)}+/`))).toEqual([
      ['signature_invalid', '/presentation/hops/0/jws/signature'],
      ['signature_invalid', '/presentation/hops/0/jws/signature'],
    ]);
    const list = disclosures(open);
    list[0] = `${list[0]}=`;
    expect(await codes(withDisclosures(open, list))).toContainEqual([
      'disclosure_digest_mismatch',
      '/presentation/hops/0/disclosures/0',
    ]);
    list[0] = b64json('ab'); // a JSON string of two characters is no disclosure
    expect(await codes(withDisclosures(open, list))).toContainEqual([
      'disclosure_digest_mismatch',
      '/presentation/hops/0/disclosures/0',
    ]);
  });

  it('a truncated token: schema_invalid naming the presentation, with whatever else broke', async () => {
    const { presentation } = await agentProviderChain(p);
    const found = await codes(presentation.slice(0, -20));
    expect(found[0]).toEqual(['schema_invalid', '/presentation']);
    expect(found.length).toBeGreaterThan(1);
    expect(await codes(presentation.slice(0, presentation.indexOf('.')))).toContainEqual([
      'schema_invalid',
      '/presentation/hops/0/jws',
    ]);
  });

  it('an oversized token: schema_invalid, nothing else read', async () => {
    const { presentation } = await agentProviderChain(p);
    expect(await codes(presentation, { maxBytes: presentation.length - 1 })).toEqual([
      ['schema_invalid', '/presentation'],
    ]);
    expect(await codes(`${'a'.repeat(70_000)}~`)).toEqual([['schema_invalid', '/presentation']]);
    // counted in UTF-8 bytes, not characters
    expect(await codes(`${'é'.repeat(33_000)}~`)).toEqual([['schema_invalid', '/presentation']]);
  });

  it('nested arrays past the depth limit, in one disclosure or through nested disclosures: schema_invalid', async () => {
    const nested = (depth: number): unknown => {
      let value: unknown = 'x';
      for (let i = 0; i < depth; i++) value = [value];
      return value;
    };
    const hop = (deep: unknown, frame: Record<string, unknown> = OPEN_PAYMENT_FRAME): Promise<string> =>
      issueHop(
        p.issuer,
        { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
        { iss: ISSUER, delegate_payload: [openPaymentContent(p.agent.publicJwk, { risk_data: { deep } })] },
        frame,
      );
    // one disclosure too deep: refused when read, before the library parses it
    expect(await codes(await hop(nested(AP2_MAX_NESTING + 2)))).toEqual([
      ['schema_invalid', '/presentation/hops/0/disclosures/2'],
    ]);
    // very deep (20,000 levels, written by hand: no JSON.stringify could): refused the same way, no stack overflow
    const shallow = await hop('x');
    const deepText = `["c2FsdA",${'['.repeat(20_000)}1${']'.repeat(20_000)}]`;
    const deepDisclosure = encodeBase64Url(new TextEncoder().encode(deepText));
    expect(await codes(withDisclosures(shallow, [...disclosures(shallow), deepDisclosure]))).toEqual([
      ['schema_invalid', '/presentation/hops/0/disclosures/3'],
    ]);
    // each disclosure shallow, the chain of array element disclosures deep: the walk counts through them
    let frame: Record<string, unknown> = { _sd: [0] };
    for (let i = 0; i < AP2_MAX_NESTING; i++) frame = { _sd: [0], 0: frame };
    const chained = await hop(nested(AP2_MAX_NESTING + 1), {
      delegate_payload: { _sd: [0], 0: { risk_data: { deep: frame } } },
    });
    const found = await codes(chained);
    expect(found).toHaveLength(1);
    expect(found[0]?.[0]).toBe('schema_invalid');
    expect(found[0]?.[1]).toMatch(/^\/presentation\/hops\/0\/disclosures\/\d+(\/0)?$/);
    // within the limit it passes
    expect(await codes(await hop(nested(AP2_MAX_NESTING - 6)))).toEqual([]);
  });

  it('a JSON text with a duplicate member name: schema_invalid (JSON.parse would keep the last one)', async () => {
    const { open } = await agentProviderChain(p);
    const [jws = ''] = open.split('~');
    const [h = '', , sig = ''] = jws.split('.');
    const payload = '{"iss":"https://agent-provider.example","iss":"https://evil.example","delegate_payload":[]}';
    const tampered = open.replace(jws, `${h}.${encodeBase64Url(new TextEncoder().encode(payload))}.${sig}`);
    expect(await codes(tampered)).toEqual([['schema_invalid', '/presentation/hops/0/jws']]);
  });

  it('an unknown vct: unsupported_vct', async () => {
    const open = await issueHop(
      p.issuer,
      { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
      { iss: ISSUER, delegate_payload: [openPaymentContent(p.agent.publicJwk, { vct: 'mandate.payment.open.2' })] },
      OPEN_PAYMENT_FRAME,
    );
    expect(await codes(open)).toEqual([['unsupported_vct', '/presentation/hops/0/mandates/0/vct']]);
  });

  it('an _sd_alg other than sha-256: disclosure_digest_mismatch', async () => {
    const { open } = await agentProviderChain(p);
    const other = await editHop(
      open,
      (_, payload) => {
        payload._sd_alg = 'sha-512';
      },
      p.issuer,
    );
    expect(await codes(other)).toEqual([['disclosure_digest_mismatch', '/presentation/hops/0/payload/_sd_alg']]);
  });

  it('a content that breaks the AP2 schema: schema_invalid naming the member', async () => {
    if (AP2_DIR === undefined) return;
    const { presentation } = await agentProviderChain(p, {
      closed: { payment_amount: { amount: '199.00', currency: 'EUR' } },
    });
    expect(await codes(presentation)).toEqual([
      ['schema_invalid', '/presentation/hops/1/mandates/0/payment_amount/amount'],
    ]);
  });

  it('a re-delegated open mandate (issuer -> agent -> sub-agent, kb+sd-jwt+kb): accepted, every mandate kept', async () => {
    const { open } = await agentProviderChain(p);
    const sub = await newKey();
    const narrowed = openPaymentContent(sub.publicJwk, {
      constraints: [
        { type: 'payment.amount_range', currency: 'EUR', max: 5000 },
        { type: 'payment.reference', conditional_transaction_id: 'FzLoxbbtgQGYZxoSM2NJYJtkFTSsdfUBoVEQ12k7JN8' },
      ],
    });
    const middle = await kbHop(p.agent, open, [narrowed], { typ: 'kb+sd-jwt+kb' });
    const last = await kbHop(sub, middle, [
      closedPaymentContent({ payment_amount: { amount: 4000, currency: 'EUR' } }),
    ]);
    const result = await verifyAp2Presentation(chain(open, middle, last), options());
    expect(result.ok ? [] : result.errors).toEqual([]);
    if (!result.ok) return;
    expect(result.value.mandates.map((m) => [m.hop, m.vct])).toEqual([
      [0, 'mandate.payment.open.1'],
      [1, 'mandate.payment.open.1'],
      [2, 'mandate.payment.1'],
    ]);
    expect(result.value.open.payment?.hop).toBe(0);
    expect(result.value.hops.map((h) => h.signerKey?.x)).toEqual([
      p.issuer.publicJwk.x,
      p.agent.publicJwk.x,
      sub.publicJwk.x,
    ]);
    // the sub-agent cannot sign for the agent's hop
    const forged = await kbHop(sub, open, [narrowed], { typ: 'kb+sd-jwt+kb' });
    expect(await codes(chain(open, forged, last))).toContainEqual([
      'key_binding_invalid',
      '/presentation/hops/1/jws/signature',
    ]);
  });
});
