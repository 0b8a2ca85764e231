/**
 * verifyDelegationChain beyond the vectors: every byte of every link flipped, hostile shapes, the length bound,
 * retired keys, and the effective scope it reports.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  canonicalJson,
  verifyDelegationChain,
  type DelegationChain,
  type GrantLink,
  type Jwks,
} from '../../src/index.ts';
import { JWKS, makeChain, NOW, SERVICE_KEY, validLinks } from './chain-builder.ts';

let links: [GrantLink, GrantLink, GrantLink];
let chain: DelegationChain;

beforeAll(async () => {
  links = await validLinks();
  chain = await makeChain(links);
});

describe('verifyDelegationChain', () => {
  it('verifies the three-link chain and reports each link and the intersection of the scopes', async () => {
    const result = await verifyDelegationChain(chain, JWKS, NOW);
    expect(result.problems).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.document_signed).toBe(true);
    expect(result.links.map((l) => [l.index, l.grant_id, l.delegator_signed, l.state])).toEqual([
      [0, links[0].grant_id, false, 'active'],
      [1, links[1].grant_id, true, 'active'],
      [2, links[2].grant_id, true, 'active'],
    ]);
    expect(result.effective_scope).toMatchObject({
      max_amount_per_purchase: { minor: 2500, currency: 'EUR' },
      max_daily_amount: { minor: 10000, currency: 'EUR' },
      requires_approval_above: { minor: 2000, currency: 'EUR' },
      allowed_merchant_categories: ['5411', 'groceries'],
      blocked_merchant_categories: ['7995', '5993'],
      allowed_jurisdictions: ['DE'],
      valid_until: '2026-09-30T00:00:00.000Z',
      may_delegate: false,
    });
  });

  it('fails when any byte of any link changes, and names that link', async () => {
    const unsigned = await makeChain(links, { unsigned: true });
    const cases: Array<{ index: number; at: number; chain: unknown }> = [];
    let unparsable = 0;
    for (const [index, link] of links.entries()) {
      const text = canonicalJson(link);
      for (let at = 0; at < text.length; at++) {
        const flipped = text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ 0x01) + text.slice(at + 1);
        try {
          const parsed: unknown = JSON.parse(flipped);
          cases.push({ index, at, chain: { ...unsigned, links: links.map((l, i) => (i === index ? parsed : l)) } });
        } catch {
          unparsable++; // no longer JSON: the file cannot even be read
        }
      }
    }
    // WebCrypto verifies off the main thread: a batch at a time uses every core
    for (let start = 0; start < cases.length; start += 64) {
      const batch = cases.slice(start, start + 64);
      const results = await Promise.all(batch.map((c) => verifyDelegationChain(c.chain, JWKS, NOW)));
      results.forEach((result, i) => {
        const { index, at } = batch[i]!;
        expect(result.valid, `link ${index} byte ${at}`).toBe(false);
        expect(
          result.problems.some((p) => p.index === index),
          `link ${index} byte ${at}: ${JSON.stringify(result.problems)}`,
        ).toBe(true);
      });
    }
    expect(cases.length).toBeGreaterThan(3000);
    expect(unparsable).toBeGreaterThan(0);
  });

  it('refuses a 10,000-link chain before checking any signature', async () => {
    const many = { ...chain, links: Array.from({ length: 10_000 }, () => links[0]) };
    const started = performance.now();
    const result = await verifyDelegationChain(many, JWKS, NOW);
    expect(result.problems).toEqual([
      expect.objectContaining({ code: 'too_many_links', index: null, field: '/links' }),
    ]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('never throws on hostile input', async () => {
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        ownKeys() {
          throw new Error('boom');
        },
      },
    );
    const getter = {
      ...chain,
      get links(): never {
        throw new Error('boom');
      },
    };
    const inputs: unknown[] = [
      null,
      undefined,
      42,
      'ns.delegation_chain.v1',
      [],
      {},
      { ...chain, links: [] },
      { ...chain, links: [null, 1, 'x'] },
      { ...chain, links: [throwing] },
      throwing,
      getter,
      { ...chain, links: [{ ...links[0], scope: JSON.parse('{"__proto__":{"may_delegate":true}}') }] },
      { ...chain, links: [{ ...links[0], scope: { max_amount_per_purchase: { amount: Infinity, currency: 'EUR' } } }] },
      {
        ...chain,
        links: [{ ...links[0], signature: { algorithm: 'none', key_id: '../../etc/passwd', signature: '' } }],
      },
      { ...chain, states: 'active', keys: null },
    ];
    for (const input of inputs) {
      const result = await verifyDelegationChain(input, JWKS, NOW);
      expect(result.valid).toBe(false);
      expect(result.problems.length).toBeGreaterThan(0);
    }
  });

  it('fails closed on a `now` that is not a timestamp', async () => {
    const result = await verifyDelegationChain(chain, JWKS, 'tomorrow');
    expect(result.problems).toEqual([expect.objectContaining({ code: 'malformed_chain', index: null })]);
  });

  it('trusts only the keys it is given, never the keys the chain carries', async () => {
    const result = await verifyDelegationChain(chain, { keys: [] }, NOW);
    expect(result.valid).toBe(false);
    expect(result.problems.filter((p) => p.code === 'link_signature_invalid').map((p) => p.index)).toEqual([0, 1, 2]);
    expect(result.problems).toContainEqual(expect.objectContaining({ code: 'document_signature_invalid' }));
  });

  it('refuses a link signed after its key was retired', async () => {
    const retired: Jwks = { keys: [{ ...SERVICE_KEY.jwk, valid_until: '2026-04-01T09:07:00.000Z' }] };
    const result = await verifyDelegationChain(await makeChain(links, { unsigned: true }), retired, NOW);
    expect(result.problems).toEqual([
      expect.objectContaining({ code: 'link_signature_invalid', index: 2, field: '/signature/key_id' }),
    ]);
  });

  it('reads the states only from a signed document', async () => {
    const revoked = await makeChain(links, { states: ['revoked', 'revoked', 'revoked'] });
    const forged = { ...revoked, signature: chain.signature };
    expect((await verifyDelegationChain(revoked, JWKS, NOW)).problems.map((p) => p.code)).toEqual([
      'revoked',
      'revoked',
      'revoked',
    ]);
    const result = await verifyDelegationChain(forged, JWKS, NOW);
    expect(result.document_signed).toBe(false);
    expect(result.problems.map((p) => p.code)).toEqual(['document_signature_invalid']);
  });
});
