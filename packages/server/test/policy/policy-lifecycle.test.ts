/**
 * The policy API over HTTP (CONTRACT section 19): a pack drafted, tested, published (signed, served as stored),
 * activated, retired (its activations deactivated with it); dictionaries drafted and published; the shipped content
 * seeded at start; roles; loadActivePolicySet reading what was activated.
 */
import { verifyDocument, policyDocumentDigest, type Jwks } from '@aar/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadActivePolicySet } from '../../src/services/policy/active-policy-set.ts';
import { createApiCall, type ApiCall } from '../support/api-call.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { testDictionary, testPack } from './policy-fixtures.ts';

const dialects = await testDialects();

describe.each(dialects)('rule packs over HTTP on %s', (dialect) => {
  let rt: TestRuntime;
  let call: ApiCall;
  let base: string;
  let auditorToken: string;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    call = createApiCall(base, ADMIN_TOKEN);
    expect((await call('POST', '/v1/entities', { type: 'person', id: 'alice', display_name: 'Alice' })).status).toBe(
      201,
    );
    const token = await call('POST', '/v1/tokens', { role: 'auditor' });
    expect(token.status).toBe(201);
    auditorToken = token.body.token;
  }, 120_000);
  afterAll(async () => rt?.close());

  it('drafts, tests, publishes, serves the signed bytes, activates and retires a pack', async () => {
    const draft = await call('POST', '/v1/rule-packs', testPack('lifecycle'));
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    expect(draft.body).toMatchObject({ id: 'ns:rule_pack:lifecycle', version: '1.0.0', state: 'draft', digest: null });
    // a draft cannot be activated
    const early = await call('POST', '/v1/rule-activations', {
      pack_id: 'lifecycle',
      version: '1.0.0',
      target: { deployment: true },
      mode: 'enforce',
    });
    expect(early.status).toBe(422);
    expect(early.body.errors[0].path).toBe('/pack_id');

    const tested = await call('POST', '/v1/rule-packs/lifecycle/versions/1.0.0/test');
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ passed: 2, failed: 0 });

    const published = await call('POST', '/v1/rule-packs/ns:rule_pack:lifecycle/versions/1.0.0/publish');
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body.state).toBe('published');
    expect(published.body.digest).toMatch(/^sha-256:/);

    const res = await fetch(`${base}/v1/rule-packs/lifecycle/versions/1.0.0`, {
      headers: { authorization: `Bearer ${auditorToken}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('aar-policy-state')).toBe('published');
    const text = await res.text();
    const stored = await rt.ctx.store.db
      .selectFrom('rule_packs')
      .select('document')
      .where('name', '=', 'lifecycle')
      .executeTakeFirstOrThrow();
    expect(text).toBe(stored.document);
    const doc = JSON.parse(text);
    expect(policyDocumentDigest(doc)).toBe(published.body.digest);
    expect((await verifyDocument(doc, (await rt.ctx.keys.jwks()) as Jwks)).valid).toBe(true);
    // a published version never changes
    const redraft = await call('POST', '/v1/rule-packs', testPack('lifecycle', { title: 'changed' }));
    expect(redraft.status).toBe(409);

    const activation = await call('POST', '/v1/rule-activations', {
      pack_id: 'ns:rule_pack:lifecycle',
      version: '1.0.0',
      target: { principal_entity_id: 'ns:entity:person:alice' },
      mode: 'enforce',
    });
    expect(activation.status, JSON.stringify(activation.body)).toBe(201);
    expect(activation.body).toMatchObject({
      state: 'active',
      target: { principal_entity_id: 'ns:entity:person:alice' },
    });
    const twice = await call('POST', '/v1/rule-activations', {
      pack_id: 'lifecycle',
      version: '1.0.0',
      target: { principal_entity_id: 'ns:entity:person:alice' },
      mode: 'enforce',
    });
    expect(twice.status).toBe(409);

    const set = await loadActivePolicySet(
      rt.ctx,
      { principal_entity_id: 'ns:entity:person:alice', grant_ids: [] },
      1_000_000,
    );
    expect(set?.policySet.packs.map((p) => [p.activation_id, p.mode, p.document.pack_id])).toEqual([
      [activation.body.activation_id, 'enforce', 'ns:rule_pack:lifecycle'],
    ]);
    expect(set?.readsCounters).toBe(true);
    expect(set?.readsLocalTime).toBe(false);
    expect(
      await loadActivePolicySet(rt.ctx, { principal_entity_id: 'ns:entity:person:bob', grant_ids: [] }, 1_000_001),
    ).toBeUndefined();

    const retired = await call('POST', '/v1/rule-packs/lifecycle/versions/1.0.0/retire');
    expect(retired.status).toBe(200);
    expect(retired.body.state).toBe('retired');
    const listed = await call('GET', '/v1/rule-activations?pack=lifecycle');
    expect(listed.body.items.map((a: { state: string }) => a.state)).toEqual(['deactivated']);
    const again = await call('POST', '/v1/rule-activations', {
      pack_id: 'lifecycle',
      version: '1.0.0',
      target: { deployment: true },
      mode: 'shadow',
    });
    expect(again.status).toBe(422);
    const types = (await call('GET', '/v1/events?limit=500')).body.items.map(
      (e: { event_type: string }) => e.event_type,
    );
    expect(types).toEqual(
      expect.arrayContaining([
        'ns.rule_pack.drafted',
        'ns.rule_pack.published',
        'ns.rule_activation.created',
        'ns.rule_activation.deactivated',
        'ns.rule_pack.retired',
      ]),
    );
  });

  it('deactivates an activation with DELETE, once', async () => {
    expect((await call('POST', '/v1/rule-packs', testPack('deletable'))).status).toBe(201);
    expect((await call('POST', '/v1/rule-packs/deletable/versions/1.0.0/publish')).status).toBe(200);
    const made = await call('POST', '/v1/rule-activations', {
      pack_id: 'deletable',
      version: '1.0.0',
      target: { deployment: true },
      mode: 'shadow',
    });
    expect(made.status).toBe(201);
    const gone = await call('DELETE', `/v1/rule-activations/${made.body.activation_id}`);
    expect(gone.status).toBe(200);
    expect(gone.body.state).toBe('deactivated');
    expect((await call('DELETE', `/v1/rule-activations/${made.body.activation_id}`)).body.state).toBe('deactivated');
    expect(
      (await call('DELETE', '/v1/rule-activations/ns:rule_activation:00000000-0000-7000-8000-000000000000')).status,
    ).toBe(404);
  });

  it('answers a retried activation with its Idempotency-Key once, activating once', async () => {
    expect((await call('POST', '/v1/rule-packs', testPack('idempotent'))).status).toBe(201);
    expect((await call('POST', '/v1/rule-packs/idempotent/versions/1.0.0/publish')).status).toBe(200);
    const send = () =>
      fetch(`${base}/v1/rule-activations`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'idempotency-key': 'activate-idempotent-1',
        },
        body: JSON.stringify({ pack_id: 'idempotent', version: '1.0.0', target: { deployment: true }, mode: 'shadow' }),
      });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    expect((await call('GET', '/v1/rule-activations?pack=idempotent')).body.items).toHaveLength(1);
  });

  it('drafts and publishes a dictionary a pack then reads', async () => {
    expect((await call('POST', '/v1/dictionaries', testDictionary('colours'))).status).toBe(201);
    const pack = testPack('dictpack', {
      dictionaries: ['ns:dictionary:colours@1.0.0'],
      rules: [
        {
          rule_id: 'beta',
          title: 'beta refused',
          description: 'denies when the request names a colour of the dictionary',
          when: { in: [{ var: 'request.colour' }, { var: 'dict.colours.codes' }] },
          effect: 'deny',
          reason: 'dictpack.too_many',
        },
      ],
      tests: [
        {
          name: 'beta',
          context: { request: { colour: 'beta' }, facts: {} },
          expect: { effect: 'deny', reason: 'dictpack.too_many' },
        },
        { name: 'gamma', context: { request: { colour: 'gamma' }, facts: {} }, expect: { effect: 'none' } },
      ],
    });
    expect((await call('POST', '/v1/rule-packs', pack)).status).toBe(201);
    // its dictionary is a draft: publishing the pack is refused, naming it
    const refused = await call('POST', '/v1/rule-packs/dictpack/versions/1.0.0/publish');
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['/dictionaries/0']);
    expect((await call('POST', '/v1/dictionaries/colours/versions/1.0.0/publish')).status).toBe(200);
    expect((await call('POST', '/v1/rule-packs/dictpack/versions/1.0.0/publish')).status).toBe(200);
    const term = await call('GET', '/v1/dictionaries/colours/terms/beta', undefined, auditorToken);
    expect(term.body).toEqual({
      dictionary_id: 'ns:dictionary:colours',
      version: '1.0.0',
      term: { code: 'beta', label: 'Beta' },
    });
    expect((await call('GET', '/v1/dictionaries/colours/terms/gamma')).status).toBe(404);
  });

  it('refuses writes to the reading roles', async () => {
    const res = await call('POST', '/v1/rule-packs', testPack('auditor-pack'), auditorToken);
    expect(res.status).toBe(403);
    expect(
      (
        await call(
          'POST',
          '/v1/rule-activations',
          { pack_id: 'x1', version: '1.0.0', target: { deployment: true }, mode: 'enforce' },
          auditorToken,
        )
      ).status,
    ).toBe(403);
    expect((await call('GET', '/v1/rule-packs', undefined, auditorToken)).status).toBe(200);
    expect((await call('GET', '/v1/rule-packs')).status).toBe(200);
  });

  it('seeded the shipped dictionaries and rule packs, published and signed, once', async () => {
    const dicts = await call('GET', '/v1/dictionaries?limit=500&state=published');
    expect(dicts.body.items.filter((d: { origin: string }) => d.origin === 'shipped').length).toBeGreaterThan(0);
    const velocity = await call('GET', '/v1/rule-packs/velocity');
    expect(velocity.status).toBe(200);
    expect(velocity.body.versions[0]).toMatchObject({ state: 'published', origin: 'shipped' });
  });
});
