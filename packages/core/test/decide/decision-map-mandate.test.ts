// The decision map's delegation node for a grant made from a mandate or allowance (aar-decide/1.4.0, DESIGN-29 §3).
import { describe, expect, it } from 'vitest';
import { decide, type GrantMandate } from '../../src/decide/index.ts';
import { buildDecisionMap, type DecisionMapNode } from '../../src/decision-map/index.ts';
import { eurRootCase, grantAt, type DecisionInput } from './fixtures.ts';

const IDS = {
  decision_map_id: 'ns:decision_map:01963a60-0000-7000-8000-000000000001',
  policy_decision_id: 'ns:decision:01963a60-0000-7000-8000-000000000002',
  audit_ref: 'ns:audit:01963a60-0000-7000-8000-000000000003',
  evidence_refs: [],
  issued_at: '2026-04-15T10:00:00.012Z',
};
const MANDATE_ID = 'ns:mandate:01963a4f-0a00-7c00-8a00-000000000001';
const ALLOWANCE_ID = 'ns:allowance:01963a4f-0b00-7c00-8a00-000000000002';
const LEAF_ID = 'ns:authority:grant:01963a4e-bf33-7e6d-8c43-5d7e9f1a3b04';

const binding = (mandate_id: string, format: 'ap2' | 'acp', used = false): GrantMandate => ({
  mandate_id,
  format,
  digest: 'q2Vg0S0Zc9y8m6oBqv2x3N1f0dSxq6m6b9m6b0Zq6m4',
  single_use: format === 'acp',
  used,
});

function chainOf(mandate: GrantMandate | undefined, state: 'active' | 'revoked' = 'active'): DecisionInput {
  const input = eurRootCase();
  const root = grantAt(input, 0);
  root.actor_entity_id = 'ns:entity:agent:concierge';
  root.actor_state = 'active';
  root.scope.may_delegate = true;
  input.snapshot.grants.push({
    ...root,
    grant_id: LEAF_ID,
    parent_grant_id: root.grant_id,
    actor_entity_id: 'ns:entity:agent:shopper-1',
    actor_state: undefined,
    scope: { max_amount_per_purchase: { minor: 5000, currency: 'EUR' } },
    state,
    depth: 1,
    ...(mandate ? { mandate } : {}),
  });
  delete input.snapshot.grants[1]!.actor_state;
  return input;
}

function delegation(input: DecisionInput): DecisionMapNode {
  const result = decide(input.request, input.snapshot, input.now);
  const map = buildDecisionMap({ ...IDS, request: input.request, snapshot: input.snapshot, result });
  return map.nodes[1]!;
}

describe('decision map: delegation node of a mandate-made grant', () => {
  it('says which protocol made the leaf and names the mandate', () => {
    expect(delegation(chainOf(binding(MANDATE_ID, 'ap2')))).toEqual({
      type: 'delegation',
      ref: 'ns:delegation:01963a4e-bf33-7e6d-8c43-5d7e9f1a3b04',
      short: '2-link chain, AP2 mandate',
      mandate_ref: MANDATE_ID,
    });
    expect(delegation(chainOf(binding(ALLOWANCE_ID, 'acp')))).toMatchObject({
      short: '2-link chain, ACP allowance',
      mandate_ref: ALLOWANCE_ID,
    });
  });

  it('a direct grant made from a mandate', () => {
    const input = eurRootCase();
    grantAt(input, 0).mandate = binding(MANDATE_ID, 'ap2');
    expect(delegation(input)).toEqual({
      type: 'delegation',
      ref: grantAt(input, 0).grant_id,
      short: 'direct grant, AP2 mandate',
      mandate_ref: MANDATE_ID,
    });
  });

  it('adds the failure: revoked, used', () => {
    expect(delegation(chainOf(binding(MANDATE_ID, 'ap2'), 'revoked')).short).toBe('2-link chain, AP2 mandate, revoked');
    expect(delegation(chainOf(binding(ALLOWANCE_ID, 'acp', true))).short).toBe('2-link chain, ACP allowance, used');
  });

  it('has no mandate_ref when the leaf carries no mandate (an old snapshot: the node is unchanged)', () => {
    const node = delegation(chainOf(undefined));
    expect(node).toEqual({
      type: 'delegation',
      ref: 'ns:delegation:01963a4e-bf33-7e6d-8c43-5d7e9f1a3b04',
      short: '2-link chain',
    });
    expect(Object.keys(node)).not.toContain('mandate_ref');
  });

  it('a mandate above the leaf is not the deciding leaf: not named', () => {
    const input = chainOf(undefined);
    grantAt(input, 0).mandate = binding(MANDATE_ID, 'ap2');
    expect(delegation(input)).not.toHaveProperty('mandate_ref');
  });
});
