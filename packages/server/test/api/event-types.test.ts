/**
 * GET /v1/event-types (CONTRACT section 9): public, grouped by family, filterable, every schema compiles under JSON
 * Schema 2020-12; appends outside the catalogue are refused and leave nothing behind; docs/events.md lists every
 * type the catalogue does.
 */
import { readFileSync } from 'node:fs';
import { EVENT_CATALOGUE, EVENT_FAMILIES, envelopeSchemaOf, isAarError } from '@aar/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent } from '../../src/services/events/append-event.ts';
import { countState } from '../support/delegation-world.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

describe('GET /v1/event-types', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime();
  });
  afterAll(async () => rt?.close());

  it('serves the whole catalogue without a credential, grouped by family', async () => {
    const res = await rt.app.inject({ method: 'GET', url: '/v1/event-types' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.families.map((f: { family: string }) => f.family)).toEqual(EVENT_FAMILIES.map((f) => f.family));
    const types = body.families.flatMap((f: { types: Array<{ event_type: string }> }) => f.types);
    expect(types.map((t: { event_type: string }) => t.event_type)).toEqual(EVENT_CATALOGUE.map((d) => d.event_type));
    expect(types.find((t: { event_type: string }) => t.event_type === 'ns.authority.revoked')).toMatchObject({
      family: 'authority',
      reason_codes: ['principal_revoked_authority', 'admin_revoked_authority'],
      named_in_spec: true,
      data_schema: { type: 'object', additionalProperties: false },
    });
    expect(body.envelope_schema).toMatchObject({ title: 'ns.webhook.v1' });
  });

  it('filters by family, and refuses a family it does not have, naming the parameter', async () => {
    const one = await rt.app.inject({ method: 'GET', url: '/v1/event-types?family=decision' });
    expect(one.statusCode).toBe(200);
    expect(one.json().families).toHaveLength(1);
    expect(one.json().families[0].types.map((t: { event_type: string }) => t.event_type)).toEqual([
      'ns.decision.requires_approval',
      'ns.decision.replay_mismatch',
    ]);
    const bad = await rt.app.inject({ method: 'GET', url: '/v1/event-types?family=nope' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('invalid_request');
    expect(JSON.stringify(bad.json().errors)).toContain('/query/family');
  });

  it('serves schemas that compile under JSON Schema 2020-12 in strict mode', async () => {
    const body = (await rt.app.inject({ method: 'GET', url: '/v1/event-types' })).json();
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    expect(() => ajv.compile(body.envelope_schema)).not.toThrow();
    for (const f of body.families) {
      for (const t of f.types) expect(() => ajv.compile(t.data_schema), t.event_type).not.toThrow();
    }
    for (const d of EVENT_CATALOGUE) {
      expect(() => ajv.compile(envelopeSchemaOf(d, { signed: true })), d.event_type).not.toThrow();
    }
  });

  it('refuses to append an event outside the catalogue, and writes nothing', async () => {
    const before = await countState(rt.ctx);
    const attempt = (eventType: string, reasonCode: string, data: Record<string, unknown>) =>
      rt.ctx.writer
        .run((trx) =>
          appendEvent(trx, rt.ctx, {
            event_type: eventType,
            actor_entity_id: null,
            principal_entity_id: null,
            subject_ref: 'ns:key:ed25519-test',
            reason_code: reasonCode,
            data,
          }),
        )
        .then(
          () => 'appended',
          (e: unknown) => (isAarError(e) ? e.code : String(e)),
        );
    expect(await attempt('ns.key.invented', 'signing_key_rotated', {})).toBe('internal');
    expect(await attempt('ns.key.rotated', 'key_lost', {})).toBe('internal');
    // catalogued type and reason, but data outside its schema: refused under test (the schema hook)
    expect(await attempt('ns.key.rotated', 'signing_key_rotated', { retired_key_id: 'x' })).toMatch(
      /does not match the event catalogue/,
    );
    expect(await countState(rt.ctx)).toEqual(before);
  });
});

describe('docs/events.md', () => {
  it('lists every catalogued event type', () => {
    const doc = readFileSync(new URL('../../../../docs/events.md', import.meta.url), 'utf8');
    const missing = EVENT_CATALOGUE.map((d) => d.event_type).filter((t) => !doc.includes(`\`${t}\``));
    expect(missing).toEqual([]);
  });
});
