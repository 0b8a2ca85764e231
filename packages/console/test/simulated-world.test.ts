/**
 * The simulator's mapping of the seven inputs onto core's decide (pure, no browser): each input moves the decision
 * the way the contract says, and amounts are read exactly or refused with a message.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_INPUTS, readAmount, simulate, type SimulatorInputs } from '../src/simulator/simulated-world.ts';

const NOW = new Date('2026-04-15T10:00:00Z');

function outcomeOf(change: Partial<SimulatorInputs>) {
  const outcome = simulate({ ...DEFAULT_INPUTS, ...change }, NOW);
  if (!outcome.ok) throw new Error(outcome.message);
  return [outcome.simulation.result.decision, outcome.simulation.result.reason];
}

describe('simulated world', () => {
  it.each([
    [{}, 'allow_with_constraints', 'scope_within_attenuated_authority'],
    [{ agentState: 'tombstoned' }, 'deny', 'actor_inactive'],
    [{ authority: 'revoked' }, 'deny', 'authority_revoked'],
    [{ authority: 'expired' }, 'deny', 'authority_expired'],
    [{ authority: 'none' }, 'deny', 'authority_not_found'],
    [{ merchantId: 'casino-online' }, 'deny', 'merchant_category_blocked'],
    [{ merchantId: 'electronics-ny' }, 'deny', 'jurisdiction_not_allowed'],
    [{ basketAmount: '100.01' }, 'require_approval', 'amount_above_approval_threshold'],
    [{ basketAmount: '100.00' }, 'allow_with_constraints', 'scope_within_attenuated_authority'],
    [{ basketAmount: '500.01' }, 'deny', 'amount_above_agent_threshold'],
    [{ approvalThreshold: '10' }, 'require_approval', 'amount_above_approval_threshold'],
    [{ cardToken: 'suspended' }, 'deny', 'instrument_inactive'],
    [{ cardToken: 'other_customer' }, 'deny', 'instrument_not_bound'],
    [{ risk: 'elevated' }, 'require_approval', 'risk_state_elevated'],
    [{ risk: 'blocked' }, 'deny', 'risk_state_blocked'],
  ] as [Partial<SimulatorInputs>, string, string][])('%o -> %s %s', (change, decision, reason) => {
    expect(outcomeOf(change)).toEqual([decision, reason]);
  });

  it('builds the seven-node map of the decision it shows', () => {
    const outcome = simulate({ ...DEFAULT_INPUTS, merchantId: 'casino-online' }, NOW);
    if (!outcome.ok) throw new Error('expected a decision');
    const { map } = outcome.simulation;
    expect(map.nodes.map((n) => n.type)).toEqual([
      'principal',
      'delegation',
      'actor',
      'capability',
      'scope',
      'state',
      'policy',
    ]);
    expect(map.nodes[4]!.short).toBe('category 7995 blocked');
    expect([map.decision, map.reason]).toEqual(['deny', 'merchant_category_blocked']);
  });

  it('reads amounts exactly in minor units, and refuses what is not an amount', () => {
    expect(readAmount(' 42.5 ')).toEqual({ minor: 4250, currency: 'EUR' });
    expect(readAmount('0.07')).toEqual({ minor: 7, currency: 'EUR' });
    for (const bad of ['', '12,50', '1.234', '-5', '1e3', 'abc']) {
      expect(readAmount(bad), bad).toMatch(/^enter an amount in euros/);
    }
    expect(readAmount('0')).toBe('enter an amount greater than zero');
    const outcome = simulate({ ...DEFAULT_INPUTS, approvalThreshold: 'x' }, NOW);
    expect(outcome).toMatchObject({ ok: false, field: 'approvalThreshold' });
  });
});
