/**
 * The simulator's mapping of the seven inputs onto core's decide (pure, no browser): each input moves the decision
 * the way the contract says, and amounts are read exactly or refused with a message.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_INPUTS, readAmount, simulate, type SimulatorInputs } from '../src/simulator/simulated-world.ts';
import { packName, SHIPPED_PACKS } from '../src/simulator/shipped-packs.ts';

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

describe('simulated world with the shipped policy packs', () => {
  const on = (packs: SimulatorInputs['packs'], facts: Partial<SimulatorInputs['facts']> = {}, change = {}) =>
    simulate({ ...DEFAULT_INPUTS, ...change, packs, facts: { ...DEFAULT_INPUTS.facts, ...facts } }, NOW);
  const decided = (outcome: ReturnType<typeof simulate>) => {
    if (!outcome.ok) throw new Error(outcome.message);
    return [outcome.simulation.result.decision, outcome.simulation.result.reason];
  };

  it('ships purchase packs with rules, each with its reasons declared', () => {
    const names = SHIPPED_PACKS.map(packName);
    expect(names).toEqual(expect.arrayContaining(['velocity', 'quiet_hours', 'first_time_merchant', 'psd2_sca']));
    for (const pack of SHIPPED_PACKS) expect(pack.rules.length, pack.pack_id).toBeGreaterThan(0);
  });

  it('denies with a pack reason when it is on, and allows when it is off', () => {
    expect(decided(on({ velocity: 'enforce' }, { purchases1h: '5' }))).toEqual([
      'deny',
      'velocity.hourly_count_exceeded',
    ]);
    expect(decided(on({ velocity: 'off' }, { purchases1h: '5' }))).toEqual([
      'allow_with_constraints',
      'scope_within_attenuated_authority',
    ]);
    expect(decided(on({ velocity: 'enforce' }, { purchases1h: '4' }))[1]).toBe('scope_within_attenuated_authority');
    expect(decided(on({ quiet_hours: 'enforce' }, { localHour: '2' }))).toEqual(['deny', 'quiet_hours.night_purchase']);
    expect(decided(on({ quiet_hours: 'enforce' }, { localHour: '5' }))[0]).toBe('allow_with_constraints');
    expect(decided(on({ first_time_merchant: 'enforce' }, { merchantFirstPurchase: true }))).toEqual([
      'require_approval',
      'first_time_merchant.new_merchant',
    ]);
    expect(decided(on({ basket_restrictions: 'enforce' }, { basketCategory: 'weapons' }))).toEqual([
      'deny',
      'basket_restrictions.weapons',
    ]);
    // a dictionary the pack declares travels with it: Berlin is in the EEA, New York is not (but is refused first
    // by the grant's allowed countries: built-in checks run before rules)
    expect(decided(on({ cross_border: 'enforce' }))[0]).toBe('allow_with_constraints');
  });

  it('records a shadow pack without letting it decide, and names the rule that decided', () => {
    const outcome = on({ velocity: 'shadow', quiet_hours: 'enforce' }, { purchases1h: '9', localHour: '3' });
    if (!outcome.ok) throw new Error(outcome.message);
    const { result, snapshot, map } = outcome.simulation;
    expect([result.decision, result.reason]).toEqual(['deny', 'quiet_hours.night_purchase']);
    expect(result.shadow).toEqual([
      {
        pack_id: 'ns:rule_pack:velocity',
        version: expect.any(String),
        effect: 'deny',
        reason: 'velocity.hourly_count_exceeded',
      },
    ]);
    expect(result.diagnostics.rules?.map((r) => r.rule_id)).toContain('night_purchase');
    // in the order the simulator lists the packs (as activations would order them), each in its mode
    const modes: Record<string, string> = { quiet_hours: 'enforce', velocity: 'shadow' };
    expect(snapshot.policy_set?.packs.map((p) => [p.document.pack_id, p.mode])).toEqual(
      SHIPPED_PACKS.filter((p) => modes[packName(p)]).map((p) => [p.pack_id, modes[packName(p)]]),
    );
    expect(snapshot.facts?.local_time).toMatchObject({ zone: 'Europe/Berlin', hour: 3, minute: 0, weekday: 3 });
    expect(map.reason).toBe('quiet_hours.night_purchase');
  });

  it('takes no policy_set and no facts while every pack is off (decide 1.2.0 behaviour)', () => {
    const outcome = on({ velocity: 'off' }, { purchases1h: 'lots' });
    if (!outcome.ok) throw new Error(outcome.message);
    expect(outcome.simulation.snapshot.policy_set).toBeUndefined();
    expect(outcome.simulation.snapshot.facts).toBeUndefined();
  });

  it('refuses a fact that is not a count, on its field', () => {
    expect(on({ velocity: 'enforce' }, { purchases1h: '2.5' })).toMatchObject({ ok: false, field: 'purchases1h' });
    expect(on({ quiet_hours: 'enforce' }, { localHour: '24' })).toMatchObject({
      ok: false,
      field: 'localHour',
      message: 'enter a whole number from 0 to 23',
    });
    expect(on({ psd2_sca: 'enforce' }, { spend24h: '-1' })).toMatchObject({ ok: false, field: 'spend24h' });
  });
});
