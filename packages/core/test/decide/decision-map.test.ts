import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/decide/index.ts';
import { buildDecisionMap, DECISION_MAP_NODE_TYPES, type UnsignedDecisionMap } from '../../src/decision-map/index.ts';
import { bhdChainCase, eurRootCase, grantAt, jpyCase, type DecisionInput } from './fixtures.ts';
import { loadDecisionVectors } from './load-vectors.ts';

const IDS = {
  decision_map_id: 'ns:decision_map:01963a60-0000-7000-8000-000000000001',
  policy_decision_id: 'ns:decision:01963a60-0000-7000-8000-000000000002',
  audit_ref: 'ns:audit:01963a60-0000-7000-8000-000000000003',
  evidence_refs: ['ns:evidence-pack:01963a60-0000-7000-8000-000000000004'],
  issued_at: '2026-04-15T10:00:00.012Z',
};

function mapOf(input: DecisionInput): UnsignedDecisionMap {
  const result = decide(input.request, input.snapshot, input.now);
  return buildDecisionMap({ ...IDS, request: input.request, snapshot: input.snapshot, result });
}

function shorts(map: UnsignedDecisionMap): Record<string, string> {
  return Object.fromEntries(map.nodes.map((n) => [n.type, n.short]));
}

describe('buildDecisionMap', () => {
  it('builds the map of a direct grant', () => {
    const map = mapOf(eurRootCase());
    const grantId = grantAt(eurRootCase(), 0).grant_id;
    expect(map).toEqual({
      schema_version: 'ns.decision_map.v1',
      ...IDS,
      decision: 'allow_with_constraints',
      reason: 'scope_within_attenuated_authority',
      nodes: [
        { type: 'principal', ref: 'ns:entity:person:alice', short: 'principal active' },
        { type: 'delegation', ref: grantId, short: 'direct grant' },
        { type: 'actor', ref: 'ns:entity:agent:shopper-1', short: 'agent active' },
        { type: 'capability', ref: 'ns:capability:payment_action:card_purchase', short: 'purchase.execute granted' },
        {
          type: 'scope',
          ref: `ns:scope:${grantId.slice('ns:authority:grant:'.length)}`,
          short: 'within 150.00 EUR per purchase',
        },
        { type: 'state', ref: 'ns:state:risk_normal', short: 'risk normal' },
        { type: 'policy', ref: 'ns:policy:card-purchase-default', short: 'policy version 1' },
      ],
    });
  });

  it('refers to the chain that ends at the leaf grant and formats each currency by its decimals', () => {
    const bhd = mapOf(bhdChainCase());
    expect(bhd.nodes[1]).toEqual({
      type: 'delegation',
      ref: grantAt(bhdChainCase(), -1).grant_id.replace('ns:authority:grant:', 'ns:delegation:'),
      short: '3-link chain',
    });
    expect(shorts(bhd).scope).toBe('within 25.000 BHD per purchase');
    expect(shorts(mapOf(jpyCase())).scope).toBe('within 30000 JPY per purchase');
  });

  it('labels the deciding fact of a deny', () => {
    const blocked = eurRootCase();
    if (blocked.snapshot.merchant) blocked.snapshot.merchant.category = '7995';
    expect(shorts(mapOf(blocked)).scope).toBe('category 7995 blocked');

    const over = eurRootCase();
    over.request.amount = { minor: 15001, currency: 'EUR' };
    expect(shorts(mapOf(over)).scope).toBe('above 150.00 EUR per purchase');

    const revoked = bhdChainCase();
    grantAt(revoked, 0).state = 'revoked';
    expect(shorts(mapOf(revoked))).toMatchObject({ delegation: '3-link chain, revoked', scope: 'not evaluated' });

    const intermediary = bhdChainCase();
    grantAt(intermediary, 1).actor_state = 'suspended';
    expect(shorts(mapOf(intermediary))).toMatchObject({ delegation: '3-link chain, intermediary inactive' });

    const suspended = eurRootCase();
    if (suspended.snapshot.actor) suspended.snapshot.actor.state = 'suspended';
    expect(shorts(mapOf(suspended))).toMatchObject({
      principal: 'principal active',
      actor: 'agent suspended',
      delegation: 'direct grant, not checked',
      capability: 'purchase.execute requested',
    });

    const approval = eurRootCase();
    approval.request.amount = { minor: 12000, currency: 'EUR' };
    expect(shorts(mapOf(approval)).policy).toBe('approval required above 100.00 EUR');

    const risky = eurRootCase();
    risky.snapshot.risk.instrument = 'elevated';
    expect(mapOf(risky).nodes[5]).toEqual({
      type: 'state',
      ref: 'ns:state:risk_elevated',
      short: 'risk elevated: instrument',
    });
  });

  it('builds a map with no grant at all', () => {
    const input = eurRootCase();
    input.snapshot.grants = [];
    input.snapshot.grant_lookup = 'authority_not_found';
    const map = mapOf(input);
    expect(map.nodes[1]).toEqual({ type: 'delegation', ref: 'ns:state:no_authority', short: 'no grant' });
    expect(map.nodes[4]).toEqual({ type: 'scope', ref: 'ns:scope:none', short: 'not evaluated' });
  });

  it.each(loadDecisionVectors().map((v) => [v.file, v] as const))(
    '%s: seven nodes in order, plain JSON, no personal data',
    (_file, vector) => {
      const map = mapOf(vector.input);
      expect(map.nodes.map((n) => n.type)).toEqual([...DECISION_MAP_NODE_TYPES]);
      expect(JSON.parse(JSON.stringify(map))).toEqual(map);
      expect(canonicalize(map)).toBe(canonicalize(JSON.parse(canonicalize(map) ?? '')));
      for (const node of map.nodes) {
        expect(node.ref).toMatch(/^ns:/);
        // The local ids of people and agents are caller-chosen and may be names: labels never carry them.
        expect(node.short).not.toMatch(/alice|bob|shopper|concierge|planner/);
        expect(node.short.length).toBeLessThanOrEqual(64);
      }
    },
  );

  it('copies evidence_refs rather than sharing the caller array', () => {
    const refs = ['ns:evidence-pack:a'];
    const input = eurRootCase();
    const result = decide(input.request, input.snapshot, input.now);
    const map = buildDecisionMap({
      ...IDS,
      evidence_refs: refs,
      request: input.request,
      snapshot: input.snapshot,
      result,
    });
    refs.push('ns:evidence-pack:b');
    expect(map.evidence_refs).toEqual(['ns:evidence-pack:a']);
  });
});
