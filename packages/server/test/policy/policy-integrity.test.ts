/**
 * An attacker with the database but not the service key (guards and triggers out of the way) edits what decides:
 * an activation's mode, a forged activation, a deactivated one set active again, a published pack's document.
 * loadActivePolicySet refuses each with 503 `audit_unavailable` naming table and column (fail closed), the GET of the
 * pack refuses the edited bytes, and `GET /v1/audit/verify` finds each.
 */
import { isAarError } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadActivePolicySet } from '../../src/services/policy/active-policy-set.ts';
import { createApiCall, type ApiCall } from '../support/api-call.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { testPack } from './policy-fixtures.ts';

const dialects = await testDialects();
const PRINCIPAL = 'ns:entity:person:dora';

describe.each(dialects)('forged policy state on %s', (dialect) => {
  let rt: TestRuntime;
  let call: ApiCall;
  let activationId: string;
  let version = 1_000_000;

  const integrityOf = async () => {
    try {
      await loadActivePolicySet(rt.ctx, { principal_entity_id: PRINCIPAL, grant_ids: [] }, (version += 1));
      return undefined;
    } catch (error) {
      if (!isAarError(error)) throw error;
      expect(error.code).toBe('audit_unavailable');
      return error.extra?.integrity as { table: string; column: string };
    }
  };
  const edit = (change: (db: Kysely<Database>) => Promise<unknown>) =>
    bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
      await change(db);
    });
  const verifyValid = async () => (await call('GET', '/v1/audit/verify')).body.valid;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    call = createApiCall(await rt.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
    expect((await call('POST', '/v1/entities', { type: 'person', id: 'dora', display_name: 'Dora' })).status).toBe(201);
    expect((await call('POST', '/v1/rule-packs', testPack('guarded'))).status).toBe(201);
    expect((await call('POST', '/v1/rule-packs/guarded/versions/1.0.0/publish')).status).toBe(200);
    const made = await call('POST', '/v1/rule-activations', {
      pack_id: 'guarded',
      version: '1.0.0',
      target: { principal_entity_id: PRINCIPAL },
      mode: 'enforce',
    });
    expect(made.status).toBe(201);
    activationId = made.body.activation_id;
    expect(await integrityOf()).toBeUndefined();
    expect(await verifyValid()).toBe(true);
  }, 120_000);
  afterAll(async () => rt?.close());

  it('refuses an activation whose mode was edited', async () => {
    await edit((db) =>
      db.updateTable('rule_activations').set({ mode: 'shadow' }).where('activation_id', '=', activationId).execute(),
    );
    expect(await integrityOf()).toMatchObject({ table: 'rule_activations', column: 'mode' });
    expect(await verifyValid()).toBe(false);
    await edit((db) =>
      db.updateTable('rule_activations').set({ mode: 'enforce' }).where('activation_id', '=', activationId).execute(),
    );
    expect(await integrityOf()).toBeUndefined();
  });

  it('refuses an activation inserted by hand', async () => {
    const forged = 'ns:rule_activation:00000000-0000-7000-8000-0000000000ff';
    const row = await rt.ctx.store.db
      .selectFrom('rule_activations')
      .selectAll()
      .where('activation_id', '=', activationId)
      .executeTakeFirstOrThrow();
    const { seq: _seq, ...values } = row;
    await edit((db) =>
      db
        .insertInto('rule_activations')
        .values({ ...values, activation_id: forged, mode: 'shadow' })
        .execute(),
    );
    expect(await integrityOf()).toMatchObject({ table: 'rule_activations', column: 'activation_id' });
    expect(await verifyValid()).toBe(false);
    await edit((db) => db.deleteFrom('rule_activations').where('activation_id', '=', forged).execute());
    expect(await verifyValid()).toBe(true);
  });

  it('refuses a published pack whose stored document was edited, and will not serve it', async () => {
    const { document } = await rt.ctx.store.db
      .selectFrom('rule_packs')
      .select('document')
      .where('name', '=', 'guarded')
      .executeTakeFirstOrThrow();
    const loosened = document.replace('"facts.counters.purchases_1h"},3]', '"facts.counters.purchases_1h"},300]');
    expect(loosened).not.toBe(document);
    await edit((db) =>
      db.updateTable('rule_packs').set({ document: loosened }).where('name', '=', 'guarded').execute(),
    );
    expect(await integrityOf()).toMatchObject({ table: 'rule_packs' });
    const served = await call('GET', '/v1/rule-packs/guarded/versions/1.0.0');
    expect(served.status).toBe(503);
    expect(served.body.code).toBe('audit_unavailable');
    expect(await verifyValid()).toBe(false);
    await edit((db) => db.updateTable('rule_packs').set({ document }).where('name', '=', 'guarded').execute());
    expect(await integrityOf()).toBeUndefined();
  });

  it('refuses a deactivated activation set active again, and finds a deleted one', async () => {
    expect((await call('DELETE', `/v1/rule-activations/${activationId}`)).status).toBe(200);
    expect(await integrityOf()).toBeUndefined();
    await edit((db) =>
      db.updateTable('rule_activations').set({ state: 'active' }).where('activation_id', '=', activationId).execute(),
    );
    expect(await integrityOf()).toMatchObject({ table: 'rule_activations', column: 'state' });
    expect(await verifyValid()).toBe(false);
    await edit((db) => db.deleteFrom('rule_activations').where('activation_id', '=', activationId).execute());
    expect(await verifyValid()).toBe(false);
  });
});
