/**
 * Bad policy input over HTTP (CONTRACT section 19 "Bad input"): each refused with problem+json naming the field by
 * its JSON pointer, and nothing written, nothing activated. Sector packs: a cycle is refused, and an apply that cannot
 * activate one of its packs activates none (the failure comes after the first activation was written in the same
 * transaction). Seeding the shipped content is idempotent, also with two instances seeding one store at once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../../src/runtime.ts';
import { seedPolicyContent } from '../../src/services/policy/seed-policy-content.ts';
import { sectorPackProblems } from '../../src/services/policy/sector-packs.ts';
import { usePolicyFolder } from '../../src/services/policy/shipped-content.ts';
import { createApiCall, type ApiCall } from '../support/api-call.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { testDictionary, testPack } from './policy-fixtures.ts';

const dialects = await testDialects();

function nested(depth: number): unknown {
  let rule: unknown = { var: 'request.amount_minor' };
  for (let i = 0; i < depth; i++) rule = { '!': [rule] };
  return rule;
}

describe.each(dialects)('policy refusals on %s', (dialect) => {
  let rt: TestRuntime;
  let call: ApiCall;
  let folder: string;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    call = createApiCall(await rt.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
    expect((await call('POST', '/v1/entities', { type: 'person', id: 'carol', display_name: 'Carol' })).status).toBe(
      201,
    );
    // a release of our own: two packs and a sector pack naming both
    folder = mkdtempSync(join(tmpdir(), 'aar-policy-'));
    for (const sub of ['dictionaries', 'rule-packs', 'sector-packs']) mkdirSync(join(folder, sub));
    writeFileSync(join(folder, 'dictionaries', 'tiers.json'), JSON.stringify(testDictionary('tiers')));
    writeFileSync(join(folder, 'rule-packs', 'first.json'), JSON.stringify(testPack('first')));
    writeFileSync(join(folder, 'rule-packs', 'second.json'), JSON.stringify(testPack('second')));
    writeFileSync(
      join(folder, 'sector-packs', 'groceries.json'),
      JSON.stringify({
        schema_version: 'ns.sector_pack.v1',
        sector_pack_id: 'ns:sector_pack:groceries',
        version: '1.0.0',
        title: 'Groceries',
        sector: 'groceries',
        rule_packs: ['ns:rule_pack:first@1.0.0', 'ns:rule_pack:second@1.0.0'],
        scope_templates: [],
        dictionaries: [],
      }),
    );
    usePolicyFolder(rt.ctx, pathToFileURL(`${folder}/`));
  }, 120_000);
  afterAll(async () => {
    await rt?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const refusedDraft = async (doc: Record<string, unknown>, status: number, code: string, pointer: string) => {
    const res = await call('POST', '/v1/rule-packs', doc);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.code).toBe(code);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(pointer);
    expect((await call('GET', `/v1/rule-packs/${String(doc.pack_id).slice('ns:rule_pack:'.length)}`)).status).toBe(404);
  };

  it('refuses a rule outside the profile', async () => {
    const pack = testPack('loose');
    (pack.rules as Array<Record<string, unknown>>)[0]!.when = { '==': [{ var: 'request.amount_minor' }, 1] };
    await refusedDraft(pack, 400, 'invalid_request', '/rules/0/when/==');
  });

  it('refuses an unknown dictionary', async () => {
    await refusedDraft(
      testPack('nodict', { dictionaries: ['ns:dictionary:nowhere@1.0.0'] }),
      422,
      'reference_not_found',
      '/dictionaries/0',
    );
  });

  it('refuses an undeclared reason code', async () => {
    const pack = testPack('noreason');
    (pack.rules as Array<Record<string, unknown>>)[0]!.reason = 'noreason.never_declared';
    await refusedDraft(pack, 400, 'invalid_request', '/rules/0/reason');
  });

  it('refuses a purchase rule that would loosen a built-in check (permit, allow) or borrow a built-in reason', async () => {
    for (const effect of ['permit', 'allow_with_constraints', 'allow']) {
      const pack = testPack(`loosen-${effect.replaceAll('_', '-')}`);
      (pack.rules as Array<Record<string, unknown>>)[0]!.effect = effect;
      await refusedDraft(pack, 400, 'invalid_request', '/rules/0/effect');
    }
    const borrowed = testPack('borrowed');
    (borrowed.rules as Array<Record<string, unknown>>)[0]!.reason = 'scope_within_attenuated_authority';
    await refusedDraft(borrowed, 400, 'invalid_request', '/rules/0/reason');
  });

  it('refuses an unknown obligation type and stop condition', async () => {
    const pack = testPack('noobligation');
    Object.assign((pack.rules as Array<Record<string, unknown>>)[0]!, {
      obligations: [{ type: 'teleport.merchant' }],
      stop_conditions: ['moon.phase_changed'],
    });
    const res = await call('POST', '/v1/rule-packs', pack);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(
      expect.arrayContaining(['/rules/0/obligations/0/type', '/rules/0/stop_conditions/0']),
    );
  });

  it('refuses a pack naming a pack where a dictionary belongs (no cycle between packs)', async () => {
    await refusedDraft(
      testPack('cyclic', { dictionaries: ['ns:rule_pack:cyclic@1.0.0'] }),
      400,
      'invalid_request',
      '/dictionaries/0',
    );
  });

  it('refuses an oversized pack and a deeply nested rule', async () => {
    await refusedDraft(testPack('huge', { description: 'x'.repeat(300 * 1024) }), 400, 'invalid_request', '');
    const deep = testPack('deep');
    (deep.rules as Array<Record<string, unknown>>)[0]!.when = nested(40);
    const res = await call('POST', '/v1/rule-packs', deep);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toMatch(/^\/rules\/0\/when/);
  });

  it('refuses to publish a pack whose tests fail, and it stays a draft', async () => {
    const pack = testPack('failing');
    (pack.tests as Array<Record<string, unknown>>)[0]!.expect = { effect: 'none' };
    expect((await call('POST', '/v1/rule-packs', pack)).status).toBe(201);
    const res = await call('POST', '/v1/rule-packs/failing/versions/1.0.0/publish');
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['/tests/0']);
    expect((await call('GET', '/v1/rule-packs/failing')).body.versions[0].state).toBe('draft');
    const activation = await call('POST', '/v1/rule-activations', {
      pack_id: 'failing',
      version: '1.0.0',
      target: { deployment: true },
      mode: 'enforce',
    });
    expect(activation.status).toBe(422);
  });

  it('refuses a sector pack that names itself or another sector pack', () => {
    const doc = {
      schema_version: 'ns.sector_pack.v1',
      sector_pack_id: 'ns:sector_pack:loop',
      version: '1.0.0',
      title: 'Loop',
      sector: 'loop',
      rule_packs: ['ns:sector_pack:loop@1.0.0', 'ns:sector_pack:other@1.0.0'],
      scope_templates: [],
      dictionaries: [],
    };
    const problems = sectorPackProblems(doc);
    expect(problems.map((p) => p.pointer)).toEqual(['/rule_packs/0', '/rule_packs/1']);
    expect(problems[0]!.message).toMatch(/itself: a cycle/);
  });

  it('seeds a release once, also with two instances at once', async () => {
    const other = await openRuntime(rt.ctx.config);
    try {
      usePolicyFolder(other, pathToFileURL(`${folder}/`));
      const [a, b] = await Promise.all([seedPolicyContent(rt.ctx), seedPolicyContent(other)]);
      expect([...a.seeded, ...b.seeded].sort()).toEqual([
        'ns:dictionary:tiers@1.0.0',
        'ns:rule_pack:first@1.0.0',
        'ns:rule_pack:second@1.0.0',
      ]);
      expect([...a.refused, ...b.refused]).toEqual([]);
      expect((await seedPolicyContent(rt.ctx)).seeded).toEqual([]);
    } finally {
      await other.store.close();
    }
    const published = (await call('GET', '/v1/rule-packs/first')).body.versions;
    expect(published).toMatchObject([{ state: 'published', origin: 'shipped' }]);
  }, 60_000);

  it('applies a sector pack all or nothing', async () => {
    // the second pack retired: the apply writes the first activation, then fails on the second, and rolls back whole
    expect((await call('POST', '/v1/rule-packs/second/versions/1.0.0/retire')).status).toBe(200);
    const body = { principal_entity_id: 'ns:entity:person:carol', mode: 'enforce' };
    const refused = await call('POST', '/v1/sector-packs/groceries/apply', body);
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['/rule_packs/1']);
    expect((await call('GET', '/v1/rule-activations?principal_entity_id=ns:entity:person:carol')).body.items).toEqual(
      [],
    );
    const events = (await call('GET', '/v1/events?limit=500')).body.items.map(
      (e: { event_type: string }) => e.event_type,
    );
    expect(events).not.toContain('ns.rule_activation.created');
    expect(events).not.toContain('ns.sector_pack.applied');
    // an unknown principal: refused naming the field
    const nobody = await call('POST', '/v1/sector-packs/groceries/apply', {
      principal_entity_id: 'ns:entity:person:nobody',
      mode: 'shadow',
    });
    expect(nobody.status).toBe(422);
    expect(nobody.body.errors[0].path).toBe('/target/principal_entity_id');
  });

  it('lists and serves the sector pack signed', async () => {
    const list = await call('GET', '/v1/sector-packs');
    expect(list.body.items.map((s: { name: string }) => s.name)).toEqual(['groceries']);
    const one = await call('GET', '/v1/sector-packs/groceries');
    expect(one.body.signature).toMatchObject({ algorithm: 'ed25519' });
  });
});
