/**
 * Marketplace listings on every database (CONTRACT section 15): the reference listings seeded at start, each search
 * filter returning exactly the matching listings (checked against the full list), pagination, every listing signed
 * and schema-valid, every score recomputed by hand from its components, and two app instances on one store (each
 * with its own signing key) serving the same bytes of score.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, recomputeTrustScore, verifyDocument, type Jwks } from '@aar/core';
import { buildApp } from '../../src/app.ts';
import { openKeyRing } from '../../src/keys/key-ring.ts';
import { testDialects } from '../support/dialects.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const dialects = await testDialects();
const DAY = 86_400_000;

/** The formula of docs/marketplace.md, from the components' own inputs, written apart from core's code. */
function byHand(ts: Json): number {
  const c = Object.fromEntries((ts.components as Json[]).map((x) => [x.name, x]));
  const conf = c.conformance.inputs;
  const expect = {
    conformance:
      conf.report_id === null
        ? Math.min(50, 10 * conf.declared_profiles)
        : conf.passed + conf.failed === 0
          ? 0
          : Math.floor((100 * conf.passed) / (conf.passed + conf.failed)),
    security_posture: c.security_posture.inputs.manifest
      ? (c.security_posture.inputs.requires_signature_verification ? 35 : 0) +
        (c.security_posture.inputs.requires_idempotency ? 35 : 0) +
        (c.security_posture.inputs.requires_audit_event ? 30 : 0)
      : 0,
    publisher_tier: { community: 20, verified: 70, certified: 100 }[c.publisher_tier.inputs.tier as string]!,
    operational_record: Math.floor(
      (100 * (c.operational_record.inputs.succeeded + 1)) /
        (c.operational_record.inputs.succeeded + c.operational_record.inputs.failed + 2),
    ),
    evidence_freshness: Math.max(
      0,
      100 -
        Math.floor(
          (100 *
            Math.max(
              0,
              Math.floor((Date.parse(ts.computed_at) - Date.parse(c.evidence_freshness.inputs.latest_at)) / DAY),
            )) /
            365,
        ),
    ),
  } as Record<string, number>;
  const weights: Record<string, number> = {
    conformance: 30,
    security_posture: 25,
    publisher_tier: 15,
    operational_record: 20,
    evidence_freshness: 10,
  };
  let total = 0;
  for (const [name, value] of Object.entries(expect)) {
    if (c[name].value !== value || c[name].weight !== weights[name]) return -1;
    total += weights[name]! * value;
  }
  return Math.floor(total / 100);
}

const REGISTERED: Json[] = [
  {
    listing_id: 'ns:listing:acme-travel-agent',
    kind: 'agent',
    title: 'Acme Travel Booking Agent',
    publisher: { name: 'Acme Agents Ltd', tier: 'community' },
    sectors: ['travel', 'retail'],
    regimes: ['eu_ai_act'],
    jurisdictions: ['GB', 'IE'],
    pricing_model: 'subscription',
    declared_profiles: ['ns.core.v1', 'ns.agent_purchasing.v1'],
  },
  {
    listing_id: 'ns:listing:zeta.procure_bot',
    kind: 'service',
    title: 'Zeta procure_desk (100% audited)',
    publisher: { name: 'Zeta GmbH', tier: 'certified' },
    sectors: ['b2b_procurement'],
    regimes: ['dora', 'gdpr'],
    jurisdictions: ['DE', 'AT'],
    pricing_model: 'enterprise',
  },
  {
    kind: 'connector',
    title: 'Acme gateway bridge for hotels',
    publisher: { name: 'Acme Payments', tier: 'verified' },
    sectors: ['travel'],
    regimes: ['pci_dss', 'psd3'],
    jurisdictions: ['FR'],
    pricing_model: 'free',
    connector_id: 'ns:connector:payments:card-not-present-gateway',
  },
];

describe.each(dialects)('marketplace listings on %s', (dialect) => {
  let rt: TestRuntime;
  let app2: FastifyInstance;
  let dir2: string;
  let jwks: Jwks;
  let all: Json[];

  const get = async (url: string, app: FastifyInstance = rt.app) => {
    const res = await app.inject({ method: 'GET', url, headers: auth() });
    return { status: res.statusCode, body: JSON.parse(res.body) as Json };
  };
  const ids = (items: Json[]) => items.map((l) => l.listing_id as string);
  /** every page of a search, following next_cursor */
  const searchAll = async (query: string, limit = 500, app: FastifyInstance = rt.app) => {
    const items: Json[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/v1/listings/search?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`, app);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      items.push(...(res.body.items as Json[]));
      cursor = res.body.next_cursor as string | null;
    } while (cursor !== null);
    return items;
  };

  beforeAll(async () => {
    const clock = { now: () => new Date('2026-11-24T10:20:00.000Z') };
    rt = await startTestRuntime({ dialect, clock });
    for (const body of REGISTERED) {
      const res = await rt.app.inject({ method: 'POST', url: '/v1/listings', headers: auth(), payload: body });
      expect(res.statusCode, res.body).toBe(201);
    }
    // a second instance on the same store, with its own data dir and so its own signing key
    dir2 = mkdtempSync(join(tmpdir(), 'aar-listing-2-'));
    const keys2 = await openKeyRing({ dataDir: dir2, store: rt.ctx.store, clock });
    app2 = await buildApp({ ...rt.ctx, keys: keys2 });
    jwks = (await get('/.well-known/jwks.json')).body as Jwks;
    all = await searchAll('');
  });
  afterAll(async () => {
    await app2?.close();
    await rt?.close();
    if (dir2) rmSync(dir2, { recursive: true, force: true });
  });

  it('a new deployment lists the reference connectors (verified), and what an admin registered', () => {
    const reference = all.filter((l) => l.listing_id.startsWith('ns:listing:reference.'));
    expect(reference.length).toBeGreaterThanOrEqual(48);
    for (const l of reference) {
      expect(l).toMatchObject({ kind: 'connector', publisher: { tier: 'verified' } });
      expect(l.connector_id).toMatch(/^ns:connector:/);
    }
    expect(all.length).toBe(reference.length + REGISTERED.length);
  });

  it('every listing is schema-valid and signed by a key of the JWKS; every score recomputes from its components', async () => {
    for (const l of all) {
      expectSchemaValid(l, 'ns.marketplace_listing.v1');
      const verified = await verifyDocument(l, jwks);
      expect(verified.valid, l.listing_id).toBe(true);
      expect(byHand(l.trust_score), l.listing_id).toBe(l.trust_score.score);
      expect(canonicalJson(recomputeTrustScore(l.trust_score))).toBe(canonicalJson(l.trust_score));
      expect(l.trust_score.computed_at).toBe('2026-11-24T10:00:00.000Z');
    }
    // tampering with a served listing breaks its signature
    const tampered = { ...all[0]!, trust_score: { ...all[0]!.trust_score, score: 100 } };
    expect((await verifyDocument(tampered, jwks)).valid).toBe(false);
  });

  it('each filter, alone and combined, returns exactly the matching listings', async () => {
    const has = (field: string, v: string) => (l: Json) => (l[field] as string[]).includes(v);
    const cases: Array<[string, (l: Json) => boolean]> = [];
    for (const v of new Set(all.flatMap((l) => l.sectors as string[]))) cases.push([`&sector=${v}`, has('sectors', v)]);
    for (const v of new Set(all.flatMap((l) => l.regimes as string[]))) cases.push([`&regime=${v}`, has('regimes', v)]);
    for (const v of ['GB', 'DE', 'AT', 'US', 'FR', 'JP']) cases.push([`&jurisdiction=${v}`, has('jurisdictions', v)]);
    for (const v of ['free', 'usage', 'subscription', 'enterprise']) {
      cases.push([`&pricing_model=${v}`, (l) => l.pricing_model === v]);
    }
    for (const v of ['community', 'verified', 'certified']) {
      cases.push([`&publisher_tier=${v}`, (l) => l.publisher.tier === v]);
    }
    const text = (q: string) => (l: Json) => `${l.title}\n${l.publisher.name}`.toLowerCase().includes(q.toLowerCase());
    for (const q of ['ACME', 'gateway', '100%', 'procure_', 'zeta gmbh', '%', '_', 'no such thing']) {
      cases.push([`&q=${encodeURIComponent(q)}`, text(q)]);
    }
    for (const s of [0, 50, 65, 70, 71, 100]) cases.push([`&min_score=${s}`, (l) => l.trust_score.score >= s]);
    cases.push([
      '&sector=travel&pricing_model=subscription&q=acme&min_score=1',
      (l) =>
        (l.sectors as string[]).includes('travel') &&
        l.pricing_model === 'subscription' &&
        text('acme')(l) &&
        l.trust_score.score >= 1,
    ]);
    for (const [query, match] of cases) {
      const expected = ids(all.filter(match));
      expect(ids(await searchAll(query)), query).toEqual(expected);
    }
    // the filters are not vacuous: each of these selects some listings but not all
    for (const query of [
      '&sector=travel',
      '&jurisdiction=GB',
      '&pricing_model=free',
      '&publisher_tier=certified',
      '&q=acme',
    ]) {
      const n = (await searchAll(query)).length;
      expect(n, query).toBeGreaterThan(0);
      expect(n, query).toBeLessThan(all.length);
    }
  });

  it('pages: small pages, with and without min_score, give the same listings as one page', async () => {
    expect(ids(await searchAll('', 7))).toEqual(ids(all));
    const scored = all.filter((l) => l.trust_score.score >= 70);
    expect(scored.length).toBeGreaterThan(3);
    expect(ids(await searchAll('&min_score=70', 3))).toEqual(ids(scored));
  });

  it('the database keeps listings write-once: no update, no delete, for anyone with SQL access', async () => {
    const db = rt.ctx.store.db;
    const one = 'ns:listing:acme-travel-agent';
    await expect(
      db.updateTable('listings').set({ title: 'changed' }).where('listing_id', '=', one).execute(),
    ).rejects.toThrow(/write-once/);
    await expect(db.deleteFrom('listings').where('listing_id', '=', one).execute()).rejects.toThrow(/write-once/);
    await expect(
      db.updateTable('listing_facets').set({ value: 'gaming' }).where('value', '=', 'travel').execute(),
    ).rejects.toThrow(/write-once/);
    await expect(db.deleteFrom('listing_facets').execute()).rejects.toThrow(/write-once/);
    expect((await get(`/v1/listings/${one}`)).body.title).toBe('Acme Travel Booking Agent');
  });

  it('two instances on one store serve the same bytes of score, each signing with its own key', async () => {
    const other = await searchAll('', 500, app2);
    expect(ids(other)).toEqual(ids(all));
    const jwksNow = (await get('/.well-known/jwks.json')).body as Jwks;
    for (let i = 0; i < all.length; i += 1) {
      expect(canonicalJson(other[i]!.trust_score)).toBe(canonicalJson(all[i]!.trust_score));
      expect(other[i]!.signature.key_id).not.toBe(all[i]!.signature.key_id);
      expect((await verifyDocument(other[i], jwksNow)).valid).toBe(true);
    }
    const one = 'ns:listing:acme-travel-agent';
    const [a, b] = [await get(`/v1/listings/${one}`), await get(`/v1/listings/${one}`, app2)];
    expect(canonicalJson(a.body.trust_score)).toBe(canonicalJson(b.body.trust_score));
  });
});
