/**
 * The kit fails a broken deployment, and exactly where it is broken. One real `aar serve`, four proxies in front of
 * it, each breaking one promise of the contract: a deny turned into an allow, the decision map's signature stripped,
 * one byte of an evidence pack changed, problem documents served as plain JSON. The same handful of fixtures runs
 * through each; the set that fails is asserted exactly (and the same set passes against the server itself).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformanceKit } from '../../src/services/conformance/run-kit.ts';
import { installedKitForTests, KIT_TOKEN, spawnKitServer, type KitServer } from '../support/conformance-kit.ts';
import { rewriteJson, startTamperingProxy, type Tamper, type TamperingProxy } from '../support/tampering-proxy.ts';

const { kit, schemas } = installedKitForTests();

const FIXTURES = [
  'payment_authority.allow.scope-within-attenuated-authority',
  'payment_authority.deny.merchant-category-blocked',
  'delegation.revocation-cascade',
  'evidence.pack-verifies-offline',
  'audit_chain.checkpoint-signed',
  'core.problem.not-found',
  'core.problem.conflict',
  'webhooks.ssrf.loopback',
  'core.jwks',
];

const isAuthorize = (a: { method: string; path: string }) => a.method === 'POST' && a.path === '/v1/runtime/authorize';

const BROKEN: Array<[string, Tamper, string[]]> = [
  [
    'a deny answered as an allow',
    rewriteJson(isAuthorize, (b) => (b.decision === 'deny' ? { ...b, decision: 'allow_with_constraints' } : undefined)),
    ['delegation.revocation-cascade', 'payment_authority.deny.merchant-category-blocked'],
  ],
  [
    "the decision map's signature stripped",
    rewriteJson(isAuthorize, (b) => {
      const { signature: _dropped, ...map } = b.decision_map as Record<string, unknown>;
      return { ...b, decision_map: map };
    }),
    [
      'delegation.revocation-cascade',
      'evidence.pack-verifies-offline',
      'payment_authority.allow.scope-within-attenuated-authority',
      'payment_authority.deny.merchant-category-blocked',
    ],
  ],
  [
    'one byte of an evidence pack changed',
    (a) =>
      a.method === 'GET' && a.path.startsWith('/v1/evidence-packs/') && a.body.includes('"currency":"EUR"')
        ? { ...a, body: a.body.replace('"currency":"EUR"', '"currency":"EUX"') }
        : a,
    ['evidence.pack-verifies-offline'],
  ],
  [
    'problem documents served as application/json',
    (a) =>
      String(a.headers['content-type']).startsWith('application/problem+json')
        ? { ...a, headers: { ...a.headers, 'content-type': 'application/json; charset=utf-8' } }
        : a,
    ['core.problem.conflict', 'core.problem.not-found', 'webhooks.ssrf.loopback'],
  ],
];

describe('a broken deployment fails the fixtures it should', () => {
  let target: KitServer;
  beforeAll(async () => {
    target = await spawnKitServer('sqlite');
  });
  afterAll(async () => target?.close());

  const failedThrough = async (baseUrl: string) => {
    const report = await runConformanceKit({
      kit,
      schemas,
      // agents sign for the server's public URL, whatever address they reach it through
      target: { baseUrl, signingOrigin: target.server.base, token: KIT_TOKEN },
      fixtureIds: FIXTURES,
    });
    expect(report.summary.fixtures).toBe(FIXTURES.length);
    return { report, failed: report.results.filter((r) => r.status === 'failed').map((r) => r.fixture_id) };
  };

  it('passes them all against the server itself', async () => {
    const { failed } = await failedThrough(target.server.base);
    expect(failed).toEqual([]);
  });

  it.each(BROKEN)('%s', async (_name, tamper, expected) => {
    let proxy: TamperingProxy | undefined;
    try {
      proxy = await startTamperingProxy(target.server.base, tamper);
      const { report, failed } = await failedThrough(proxy.base);
      expect(proxy.tampered()).toBeGreaterThan(0);
      expect(
        failed.sort(),
        JSON.stringify(
          report.results.filter((r) => r.status === 'failed'),
          null,
          2,
        ),
      ).toEqual(expected);
      expect(report.passed).toBe(false);
      expect(report.summary.skipped).toBe(0);
    } finally {
      await proxy?.close();
    }
  });
});
