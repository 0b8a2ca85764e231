/**
 * Seeding the shipped policy content (seed-policy-content.ts), the set whole: a new store holds every shipped
 * dictionary and rule pack, published, origin `shipped`, its digest the release file's, signed by that store's own
 * key (nothing refused). A start that finds them all signs nothing. A second store of the same process is signed with
 * its own key although the checks' pass is remembered, and that remembered pass never carries over to a store where
 * what the checks read differs: a pack whose tests fail against that store's dictionary is refused there.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { policyDocumentDigest, type Jwks } from '@aar/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { storedDocumentProblem } from '../../src/services/policy/document-integrity.ts';
import { seedPolicyContent } from '../../src/services/policy/seed-policy-content.ts';
import { usePolicyFolder } from '../../src/services/policy/shipped-content.ts';
import { readVersion, type DocumentKind } from '../../src/services/policy/stored-documents.ts';
import { testDictionary, testPack } from '../policy/policy-fixtures.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { shippedDictionaries, shippedRulePacks } from './shipped-content.ts';

const shipped: Array<{ kind: DocumentKind; name: string; doc: Record<string, unknown> }> = [
  ...shippedDictionaries().map((f) => ({ kind: 'dictionary' as const, name: f.name, doc: f.doc as never })),
  ...shippedRulePacks().map((f) => ({ kind: 'rule_pack' as const, name: f.name, doc: f.doc as never })),
];

/** Every shipped document as `storedDocumentProblem` sees it in `rt`'s store, checked against `jwks`. */
async function problems(rt: TestRuntime, jwks: Jwks): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const { kind, name, doc } of shipped) {
    const row = await readVersion(rt.ctx.store.db, kind, name, String(doc.version));
    if (!row) out[`${kind}:${name}`] = 'missing';
    else if (row.state !== 'published' || row.origin !== 'shipped') out[`${kind}:${name}`] = row.state;
    else if (row.digest !== policyDocumentDigest(doc)) out[`${kind}:${name}`] = 'digest';
    else out[`${kind}:${name}`] = (await storedDocumentProblem(kind, row, jwks)) ?? 'ok';
  }
  return out;
}

const allOk = () => Object.fromEntries(shipped.map(({ kind, name }) => [`${kind}:${name}`, 'ok']));

describe('seeding the shipped policy content', () => {
  let first: TestRuntime;
  let second: TestRuntime;
  let folder: string;

  beforeAll(async () => {
    [first, second] = [await startTestRuntime(), await startTestRuntime()];
    // a release of our own: a dictionary, and a pack whose test depends on its terms
    folder = mkdtempSync(join(tmpdir(), 'aar-seed-'));
    for (const sub of ['dictionaries', 'rule-packs']) mkdirSync(join(folder, sub));
    writeFileSync(join(folder, 'dictionaries', 'tiers.json'), JSON.stringify(testDictionary('tiers')));
    writeFileSync(
      join(folder, 'rule-packs', 'tiered.json'),
      JSON.stringify(
        testPack('tiered', {
          dictionaries: ['ns:dictionary:tiers@1.0.0'],
          rules: [
            {
              rule_id: 'tier',
              title: 'a listed tier is refused',
              description: 'denies when the request names a term of tiers',
              when: { in: [{ var: 'request.tier' }, { var: 'dict.tiers.codes' }] },
              effect: 'deny',
              reason: 'tiered.too_many',
            },
          ],
          tests: [
            {
              name: 'beta is refused',
              context: { request: { tier: 'beta' }, facts: {} },
              expect: { effect: 'deny', reason: 'tiered.too_many' },
            },
            { name: 'gamma passes', context: { request: { tier: 'gamma' }, facts: {} }, expect: { effect: 'none' } },
          ],
        }),
      ),
    );
  }, 120_000);
  afterAll(async () => {
    await first?.close();
    await second?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('a new store holds the whole shipped set, published and signed by its own key', async () => {
    expect(shipped.length).toBeGreaterThan(20);
    const firstKeys = (await first.ctx.keys.jwks()) as Jwks;
    const secondKeys = (await second.ctx.keys.jwks()) as Jwks;
    expect(await problems(first, firstKeys)).toEqual(allOk());
    // the second store's checks were remembered from the first; its signatures are its own
    expect(await problems(second, secondKeys)).toEqual(allOk());
    expect(Object.values(await problems(second, firstKeys))).not.toContain('ok');
  });

  it('a start that finds everything present writes and signs nothing', async () => {
    const signer = vi.spyOn(first.ctx.keys, 'current');
    try {
      expect(await seedPolicyContent(first.ctx)).toEqual({ seeded: [], refused: [] });
      expect(signer).not.toHaveBeenCalled();
    } finally {
      signer.mockRestore();
    }
  });

  it("a pass remembered from one store is not another's whose dictionary differs", async () => {
    usePolicyFolder(first.ctx, pathToFileURL(`${folder}/`));
    expect(await seedPolicyContent(first.ctx)).toEqual({
      seeded: ['ns:dictionary:tiers@1.0.0', 'ns:rule_pack:tiered@1.0.0'],
      refused: [],
    });
    // the second store already has its own tiers@1.0.0, published, `gamma` instead of `beta`: both tests fail there
    const own = testDictionary('tiers', { terms: [{ code: 'gamma', label: 'Gamma' }] });
    const post = (url: string, payload?: unknown) =>
      second.app.inject({ method: 'POST', url, headers: auth(), ...(payload ? { payload } : {}) });
    expect((await post('/v1/dictionaries', own)).statusCode).toBe(201);
    expect((await post('/v1/dictionaries/tiers/versions/1.0.0/publish')).statusCode).toBe(200);
    usePolicyFolder(second.ctx, pathToFileURL(`${folder}/`));
    const seeded = await seedPolicyContent(second.ctx);
    expect(seeded.seeded).toEqual([]);
    expect(seeded.refused).toEqual([
      {
        file: 'rule-packs/tiered.json',
        problems: [
          expect.stringMatching(/^\/tests\/0: .* the pack gives `none`/),
          expect.stringMatching(/^\/tests\/1: /),
        ],
      },
    ]);
    expect(await readVersion(second.ctx.store.db, 'rule_pack', 'tiered', '1.0.0')).toBeUndefined();
  });
});
