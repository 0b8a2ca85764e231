/**
 * The reference connector catalogue over HTTP (CONTRACT section 15): size and spread, every manifest valid against
 * the published JSON Schema and its own risk rules, every event type it names in the real catalogue, and filters
 * that return exactly the matching manifests (checked against the full list, filter by filter and combined).
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findManifestRuleViolations, type ConnectorManifest } from '@aar/core';
import { CONNECTORS_DIR } from '../../src/services/connectors/connector-catalogue.ts';
import { schemaErrors } from '../support/schema-validation.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let rt: TestRuntime;
let all: ConnectorManifest[];
let runtimeToken: string;

async function get(url: string, token?: string): Promise<{ status: number; body: Json }> {
  const res = await rt.app.inject({ method: 'GET', url, headers: auth(token) });
  return { status: res.statusCode, body: JSON.parse(res.body) as Json };
}

beforeAll(async () => {
  rt = await startTestRuntime();
  const listed = await get('/v1/connectors');
  expect(listed.status).toBe(200);
  all = listed.body.items as ConnectorManifest[];
  const created = await rt.app.inject({
    method: 'POST',
    url: '/v1/tokens',
    headers: auth(),
    payload: { role: 'runtime' },
  });
  runtimeToken = (JSON.parse(created.body) as Json).token as string;
});
afterAll(async () => rt?.close());

describe('GET /v1/connectors', () => {
  it('serves about fifty manifests in six families and fourteen types, one data file each', () => {
    expect(all.length).toBeGreaterThanOrEqual(48);
    expect(new Set(all.map((m) => m.category)).size).toBe(6);
    expect(new Set(all.map((m) => m.connector_type)).size).toBe(14);
    expect(new Set(all.map((m) => m.connector_id)).size).toBe(all.length);
    const files = readdirSync(CONNECTORS_DIR, { recursive: true }).filter((f) => String(f).endsWith('.json'));
    expect(files.length).toBe(all.length);
    expect(all.map((m) => m.connector_id)).toEqual([...all.map((m) => m.connector_id)].sort());
  });

  it('each manifest is valid against the published schema and keeps the risk rules', () => {
    for (const m of all) {
      expect(schemaErrors(m, 'ns.connector_manifest.v1'), m.connector_id).toEqual([]);
      expect(findManifestRuleViolations(m), m.connector_id).toEqual([]);
      expect(m.connector_id.split(':')[2]).toBe(m.category);
      if (m.risk.side_effect_level === 'move_money') {
        expect(m.risk).toMatchObject({
          requires_signature_verification: true,
          requires_idempotency: true,
          requires_audit_event: true,
        });
      }
    }
    // the catalogue exercises what it enforces: money movers, optional idempotency, both verification settings
    expect(all.filter((m) => m.risk.side_effect_level === 'move_money').length).toBeGreaterThan(5);
    expect(all.some((m) => !m.risk.requires_idempotency)).toBe(true);
    expect(all.some((m) => !m.risk.requires_signature_verification)).toBe(true);
  });

  it('the schema refuses what a manifest must not be', () => {
    const good = all.find((m) => m.risk.side_effect_level === 'move_money')!;
    const bad: unknown[] = [
      { ...good, extra: 1 },
      { ...good, status: 'retired' },
      { ...good, version: '1.2' },
      { ...good, connector_id: 'ns:connector:payments' },
      { ...good, risk: { ...good.risk, requires_idempotency: false } },
      { ...good, events: { subscribes_to: ['not.an.event.type.at.all'], publishes: [] } },
    ];
    for (const b of bad) expect(schemaErrors(b, 'ns.connector_manifest.v1'), JSON.stringify(b)).not.toEqual([]);
  });

  it('every event type a manifest subscribes to or publishes is in GET /v1/event-types', async () => {
    const catalogue = await get('/v1/event-types');
    const known = new Set<string>(
      (catalogue.body.families as Json[]).flatMap((f) => (f.types as Json[]).map((t) => t.event_type as string)),
    );
    for (const m of all) {
      for (const t of [...m.events.subscribes_to, ...m.events.publishes]) {
        expect(known.has(t), `${m.connector_id}: ${t}`).toBe(true);
      }
      expect(m.events.subscribes_to.length, m.connector_id).toBeGreaterThan(0);
    }
  });

  it('each filter, and filters combined, return exactly the matching manifests', async () => {
    const ids = (ms: ConnectorManifest[]) => ms.map((m) => m.connector_id);
    const cases: Array<[string, (m: ConnectorManifest) => boolean]> = [];
    for (const f of new Set(all.map((m) => m.category))) cases.push([`family=${f}`, (m) => m.category === f]);
    for (const t of new Set(all.map((m) => m.connector_type))) {
      cases.push([`connector_type=${t}`, (m) => m.connector_type === t]);
    }
    for (const s of ['active', 'beta', 'deprecated']) cases.push([`status=${s}`, (m) => m.status === s]);
    for (const p of ['ns.payment_authority.v1', 'ns.webhooks.cose.v1', 'ns.marketplace.v1']) {
      cases.push([`profile=${p}`, (m) => m.supported_profiles.includes(p)]);
    }
    cases.push([
      'family=payments&status=active&profile=ns.webhooks.shared_secret.v1',
      (m) =>
        m.category === 'payments' &&
        m.status === 'active' &&
        m.supported_profiles.includes('ns.webhooks.shared_secret.v1'),
    ]);
    for (const [query, match] of cases) {
      const res = await get(`/v1/connectors?${query}`);
      expect(res.status, query).toBe(200);
      expect(ids(res.body.items), query).toEqual(ids(all.filter(match)));
    }
    // every status occurs, so the status filter is not vacuous
    for (const s of ['active', 'beta', 'deprecated']) expect(all.some((m) => m.status === s)).toBe(true);
  });

  it('refuses an unknown filter value or parameter, naming it', async () => {
    for (const [query, path] of [
      ['family=crypto', '/query/family'],
      ['connector_type=atm', '/query/connector_type'],
      ['status=retired', '/query/status'],
      ['profile=ns.nothing.v1', '/query/profile'],
      ['colour=red', '/query/colour'],
    ] as const) {
      const res = await get(`/v1/connectors?${query}`);
      expect(res.status, query).toBe(400);
      expect(
        res.body.errors.map((e: Json) => e.path),
        query,
      ).toContain(path);
    }
  });

  it('reads one manifest; 404 for an unknown id; any role may read, nobody anonymously', async () => {
    const one = all[0]!;
    const res = await get(`/v1/connectors/${encodeURIComponent(one.connector_id)}`, runtimeToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(one);
    const missing = await get('/v1/connectors/ns%3Aconnector%3Apayments%3Anope');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
    const anonymous = await rt.app.inject({ method: 'GET', url: '/v1/connectors' });
    expect(anonymous.statusCode).toBe(401);
  });
});
