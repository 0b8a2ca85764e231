/**
 * AuthZEN beyond purchases (CONTRACT section 20): the OpenID AuthZEN Todo interop scenario, loaded through the API as
 * a `generic` rule pack plus a dictionary of its users and roles (fixtures/), answers every decision of the shared
 * vectors file (40 single evaluations, 3 batches) over real HTTP with a `pep` token. Every decision is a signed
 * `ns.access_decision.v1` that verifies with the service's JWKS, has its audit entry, and the audit chain verifies.
 * Cases listed in fixtures/todo-expected-failures.json (each with its reason) are expected to fail; none is today.
 */
import { readFileSync } from 'node:fs';
import { verifyDocument, type Jwks } from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthzenEvaluationResponse,
  AuthzenEvaluationsResponse,
  AuthzenSearchActionResponse,
  AuthzenSearchEntityResponse,
} from '../../src/routes/authzen-schemas.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { expectAuthzenShape, readTodoVectors } from './authzen-support.ts';

const vectors = readTodoVectors();
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8'));
const expectedFailures = fixture('todo-expected-failures.json') as Array<{
  kind: string;
  index: number;
  reason: string;
}>;
const failing = new Set(expectedFailures.map((f) => `${f.kind}/${f.index}`));

describe.skipIf(vectors === undefined)('AuthZEN Todo interop decisions over HTTP', () => {
  let rt: TestRuntime;
  let w: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let pep: string;
  let jwks: Jwks;

  beforeAll(async () => {
    rt = await startTestRuntime();
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildPurchaseWorld(base, ADMIN_TOKEN);
    await w.must('POST', '/v1/dictionaries', fixture('todo-directory.dictionary.json'));
    await w.must('POST', '/v1/dictionaries/todo_directory/versions/1.0.0/publish');
    await w.must('POST', '/v1/rule-packs', fixture('todo.rule-pack.json'));
    await w.must('POST', '/v1/rule-packs/todo/versions/1.0.0/publish');
    await w.must('POST', '/v1/rule-activations', {
      pack_id: 'ns:rule_pack:todo',
      version: '1.0.0',
      target: { deployment: true },
      mode: 'enforce',
    });
    pep = (await w.must('POST', '/v1/tokens', { role: 'pep', label: 'todo backend' })).token;
    jwks = (await w.call('GET', '/.well-known/jwks.json')).body as Jwks;
  });
  afterAll(async () => rt?.close());

  it('answers every single evaluation as the vectors say, each decision signed', async () => {
    const wrong: string[] = [];
    for (const [i, c] of vectors!.evaluation.entries()) {
      const res = await w.call('POST', '/access/v1/evaluation', c.request, pep);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expectAuthzenShape(res.body, AuthzenEvaluationResponse);
      const doc = res.body.context.aar.access_decision;
      expect(doc).toMatchObject({ schema_version: 'ns.access_decision.v1', request: { action: c.request.action } });
      expect(doc.policy_set.packs).toEqual([
        expect.objectContaining({ pack_id: 'ns:rule_pack:todo', mode: 'enforce' }),
      ]);
      if (i < 3) {
        expect((await verifyDocument(doc, jwks)).valid).toBe(true);
        expectSchemaValid(doc);
      }
      if ((res.body.decision === c.expected) === failing.has(`evaluation/${i}`))
        wrong.push(`#${i} ${JSON.stringify(c.request)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('answers every batch as the vectors say', async () => {
    for (const [i, c] of vectors!.evaluations.entries()) {
      const res = await w.call('POST', '/access/v1/evaluations', c.request, pep);
      expect(res.status).toBe(200);
      expectAuthzenShape(res.body, AuthzenEvaluationsResponse);
      const got = res.body.evaluations.map((e: { decision: boolean }) => ({ decision: e.decision }));
      if (failing.has(`evaluations/${i}`)) expect(got).not.toEqual(c.expected);
      else expect(got).toEqual(c.expected);
    }
    // as the Todo backend sends it: empty `resource` and `context` defaults, each item naming its own resource
    const c = vectors!.evaluations[1]!;
    const withEmptyDefaults = await w.call(
      'POST',
      '/access/v1/evaluations',
      { ...c.request, resource: {}, context: {} },
      pep,
    );
    expect(withEmptyDefaults.body.evaluations.map((e: { decision: boolean }) => ({ decision: e.decision }))).toEqual(
      c.expected,
    );
    // an item that ends up without an action (none of its own, no default) refuses the batch, naming it
    const noAction = await w.call(
      'POST',
      '/access/v1/evaluations',
      { subject: c.request.subject, resource: {}, evaluations: [{ resource: { type: 'todo', id: 't' } }] },
      pep,
    );
    expect(noAction.status).toBe(400);
    expect(noAction.body.errors[0].path).toBe('/evaluations/0/action');
  });

  it('records each decision with its audit entry; the chain verifies', async () => {
    const rows = await rt.ctx.store.db.selectFrom('access_decisions').select(['audit_id', 'document']).execute();
    // the vectors, and the batch sent again with empty defaults
    const decided =
      vectors!.evaluation.length +
      vectors!.evaluations.reduce((n, c) => n + c.expected.length, 0) +
      vectors!.evaluations[1]!.expected.length;
    expect(rows.length).toBe(decided);
    const entries = await rt.ctx.store.db
      .selectFrom('audit_entries')
      .select('audit_id')
      .where(
        'audit_id',
        'in',
        rows.slice(0, 5).map((r) => r.audit_id),
      )
      .execute();
    expect(entries.length).toBe(5);
    expect((await w.call('GET', '/v1/audit/verify')).body).toMatchObject({ valid: true });
  });

  it('denies an action no rule permits, and a subject the directory does not know', async () => {
    const ask = (subject: string, action: string) =>
      w.call(
        'POST',
        '/access/v1/evaluation',
        { subject: { type: 'user', id: subject }, action: { name: action }, resource: { type: 'todo', id: 't' } },
        pep,
      );
    const rick = 'CiRmZDA2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs';
    const unknownAction = await ask(rick, 'can_launch_portal_gun');
    expect(unknownAction.body).toMatchObject({
      decision: false,
      context: { aar: { decision: 'deny', reason: 'no_permit' } },
    });
    const stranger = await ask('nobody', 'can_read_todos');
    expect(stranger.body.decision).toBe(false);
  });

  it("searches subjects, resources and actions among the directory's terms, paged", async () => {
    const rick = 'CiRmZDA2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs';
    const morty = 'CiRmZDE2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs';
    const summer = 'CiRmZDI2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs';
    const beth = 'CiRmZDM2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs';
    const before = (await rt.ctx.store.db.selectFrom('access_decisions').select('seq').execute()).length;
    const creators = await w.call(
      'POST',
      '/access/v1/search/subject',
      { subject: { type: 'user' }, action: { name: 'can_create_todo' }, resource: { type: 'todo', id: 't' } },
      pep,
    );
    expect(creators.status).toBe(200);
    expectAuthzenShape(creators.body, AuthzenSearchEntityResponse);
    expect(creators.body.results.map((r: { id: string }) => r.id).sort()).toEqual([rick, morty, summer].sort());
    const actions = await w.call(
      'POST',
      '/access/v1/search/action',
      { subject: { type: 'user', id: beth }, resource: { type: 'todo', id: 't' } },
      pep,
    );
    expectAuthzenShape(actions.body, AuthzenSearchActionResponse);
    expect(actions.body).toEqual({
      results: [{ name: 'can_read_todos' }, { name: 'can_read_user' }],
      page: { next_token: '' },
    });
    const users: string[] = [];
    let token: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await w.call(
        'POST',
        '/access/v1/search/resource',
        {
          subject: { type: 'user', id: morty },
          action: { name: 'can_read_user' },
          resource: { type: 'user' },
          page: { limit: 2, ...(token ? { token } : {}) },
        },
        pep,
      );
      expectAuthzenShape(page.body, AuthzenSearchEntityResponse);
      users.push(...page.body.results.map((r: { id: string }) => r.id));
      token = page.body.page.next_token;
      if (!token) break;
    }
    expect(users).toHaveLength(5);
    expect(users).toContain('jerry@the-smiths.com');
    const bad = await w.call(
      'POST',
      '/access/v1/search/resource',
      {
        subject: { type: 'user', id: morty },
        action: { name: 'can_read_user' },
        resource: { type: 'user' },
        page: { token: 'zz' },
      },
      pep,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/page/token');
    // a search records nothing
    expect((await rt.ctx.store.db.selectFrom('access_decisions').select('seq').execute()).length).toBe(before);
  });

  it("a principal's enforce pack denies over the permits (deny overrides); a shadow pack is recorded, never decisive", async () => {
    const pack = (name: string, effect: 'deny' | 'permit') => ({
      schema_version: 'ns.rule_pack.v1',
      pack_id: `ns:rule_pack:${name}`,
      version: '1.0.0',
      domain: 'generic',
      title: `${name}: every deletion`,
      description: 'Matches every `can_delete_todo`.',
      dictionaries: [],
      reasons:
        effect === 'deny' ? [{ code: 'deletions_frozen', decision: 'deny', description: 'Deletions are frozen.' }] : [],
      rules: [
        {
          rule_id: 'deletions',
          title: 'Every deletion',
          description: 'Matches `can_delete_todo`.',
          when: { '===': [{ var: 'request.action.name' }, 'can_delete_todo'] },
          effect,
          ...(effect === 'deny' ? { reason: `${name}.deletions_frozen` } : {}),
        },
      ],
      tests: [
        { name: 'a deletion', context: { request: { action: { name: 'can_delete_todo' } } }, expect: { effect } },
      ],
    });
    for (const name of ['todo_freeze', 'todo_watch']) {
      await w.must('POST', '/v1/rule-packs', pack(name, 'deny'));
      await w.must('POST', `/v1/rule-packs/${name}/versions/1.0.0/publish`);
    }
    // frozen for alice only; watched (shadow) for the whole deployment
    await w.must('POST', '/v1/rule-activations', {
      pack_id: 'ns:rule_pack:todo_freeze',
      version: '1.0.0',
      target: { principal_entity_id: 'ns:entity:person:alice' },
      mode: 'enforce',
    });
    await w.must('POST', '/v1/rule-activations', {
      pack_id: 'ns:rule_pack:todo_watch',
      version: '1.0.0',
      target: { deployment: true },
      mode: 'shadow',
    });
    const rick = 'CiRmZDA2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs';
    const deletion = (context?: Record<string, unknown>) => ({
      subject: { type: 'user', id: rick },
      action: { name: 'can_delete_todo' },
      resource: { type: 'todo', id: 't-9', properties: { ownerID: 'morty@the-citadel.com' } },
      ...(context ? { context } : {}),
    });
    const anywhere = await w.call('POST', '/access/v1/evaluation', deletion(), pep);
    expect(anywhere.body.decision).toBe(true);
    expect(anywhere.body.context.aar.access_decision.shadow).toEqual([
      { pack_id: 'ns:rule_pack:todo_watch', version: '1.0.0', decision: 'deny', reason: 'todo_watch.deletions_frozen' },
    ]);
    const forAlice = await w.call(
      'POST',
      '/access/v1/evaluation',
      deletion({ principal_entity_id: 'ns:entity:person:alice' }),
      pep,
    );
    expect(forAlice.body).toMatchObject({
      decision: false,
      context: { aar: { decision: 'deny', reason: 'todo_freeze.deletions_frozen' } },
    });
    const doc = forAlice.body.context.aar.access_decision;
    expect(doc.deciding_rules.map((r: { pack_id: string; effect: string }) => `${r.pack_id}/${r.effect}`)).toEqual([
      'ns:rule_pack:todo/permit',
      'ns:rule_pack:todo_freeze/deny',
    ]);
    expect(doc.policy_set.packs.map((p: { pack_id: string; mode: string }) => `${p.pack_id}/${p.mode}`)).toEqual([
      'ns:rule_pack:todo/enforce',
      'ns:rule_pack:todo_watch/shadow',
      'ns:rule_pack:todo_freeze/enforce',
    ]);
    expectSchemaValid(doc);
  });
});
