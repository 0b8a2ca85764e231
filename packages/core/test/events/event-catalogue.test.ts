import { describe, expect, it } from 'vitest';
import {
  ENVELOPE_SCHEMA_NAME,
  EVENT_CATALOGUE,
  EVENT_FAMILIES,
  EVENT_TYPE_PATTERN,
  REASON_CODES,
  envelopeSchemaOf,
  eventTypeDefinition,
  isCataloguedEvent,
  type JsonSchema,
} from '../../src/index.ts';

describe('the event catalogue', () => {
  it('names every type ns.<family>.<name>, once, under the family of its second segment', () => {
    const types = EVENT_CATALOGUE.map((d) => d.event_type);
    expect(new Set(types).size).toBe(types.length);
    for (const f of EVENT_FAMILIES) {
      expect(f.types.length, f.family).toBeGreaterThan(0);
      for (const d of f.types) {
        expect(d.event_type).toMatch(EVENT_TYPE_PATTERN);
        expect(d.event_type.split('.')[1]).toBe(f.family);
        expect(d.family).toBe(f.family);
      }
    }
    expect(new Set(EVENT_FAMILIES.map((f) => f.family)).size).toBe(EVENT_FAMILIES.length);
  });

  it('includes the five types the specification names, flagged as such', () => {
    const named = EVENT_CATALOGUE.filter((d) => d.named_in_spec).map((d) => d.event_type);
    expect(named.sort()).toEqual([
      'ns.authority.revoked',
      'ns.decision.replay_mismatch',
      'ns.decision.requires_approval',
      'ns.purchase_authority.allowed',
      'ns.purchase_authority.denied',
    ]);
    expect(eventTypeDefinition('ns.authority.revoked')?.reason_codes).toContain('principal_revoked_authority');
  });

  it('gives every decision event exactly the reason codes of its decision', () => {
    const of = (decision: string) =>
      Object.entries(REASON_CODES)
        .filter(([, info]) => info.decision === decision)
        .map(([code]) => code)
        .sort();
    expect([...eventTypeDefinition('ns.purchase_authority.allowed')!.reason_codes].sort()).toEqual(
      of('allow_with_constraints'),
    );
    expect([...eventTypeDefinition('ns.purchase_authority.denied')!.reason_codes].sort()).toEqual(of('deny'));
    expect(eventTypeDefinition('ns.decision.requires_approval')!.reason_codes).toEqual(
      expect.arrayContaining(of('require_approval')),
    );
  });

  it('lists each reason code once per type, and closes every data schema', () => {
    for (const d of EVENT_CATALOGUE) {
      expect(new Set(d.reason_codes).size, d.event_type).toBe(d.reason_codes.length);
      for (const code of d.reason_codes) expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(d.data_schema, d.event_type).toMatchObject({ type: 'object', additionalProperties: false });
      for (const key of (d.data_schema as { required: string[] }).required) {
        expect(Object.keys((d.data_schema as { properties: JsonSchema }).properties), d.event_type).toContain(key);
      }
      expect(new RegExp(d.subject_ref.pattern).source).toMatch(/^\^.*\$$/);
    }
  });

  it('accepts only a catalogued type with one of its reason codes', () => {
    expect(isCataloguedEvent('ns.authority.revoked', 'admin_revoked_authority')).toBe(true);
    expect(isCataloguedEvent('ns.authority.revoked', 'authority_delegated')).toBe(false);
    expect(isCataloguedEvent('ns.authority.unknown', 'admin_revoked_authority')).toBe(false);
    expect(isCataloguedEvent('__proto__', 'constructor')).toBe(false);
    expect(eventTypeDefinition('toString')).toBeUndefined();
  });

  it('builds a per-type envelope schema that fixes the type, reasons, subject, principal and actor', () => {
    const d = eventTypeDefinition('ns.merchant.created')!;
    const schema = envelopeSchemaOf(d, { signed: true }) as {
      properties: Record<string, JsonSchema>;
      required: string[];
    };
    expect(schema.properties.schema_version).toEqual({ const: ENVELOPE_SCHEMA_NAME });
    expect(schema.properties.event_type).toEqual({ const: 'ns.merchant.created' });
    expect(schema.properties.reason_code).toEqual({ enum: ['merchant_registered'] });
    expect(schema.properties.principal_entity_id).toEqual({ type: 'null' });
    expect(schema.properties.data).toBe(d.data_schema);
    expect(schema.required).toContain('signature');
    expect(envelopeSchemaOf(d, { signed: false }).required).not.toContain('signature');
  });
});
