/**
 * The console's readers of the policy-content answers (pure, no browser): versions grouped per pack with their
 * activations, newest version first, a backtest report in any of its count shapes, a term search, and documents given
 * bare or under `document`. Unknown or missing members never throw.
 */
import { describe, expect, it } from 'vitest';
import {
  compareVersionsDesc,
  groupPacks,
  readActivation,
  readBacktest,
  readDictionaryBody,
  readOutcomeRows,
  readPackVersion,
  readPackVersionBody,
  readTestRun,
  searchTerms,
} from '../src/console/policy/policy-api.ts';

describe('policy api readers', () => {
  it('orders versions as semver, newest first', () => {
    expect(['1.2.0', '1.10.0', '1.9.1', '0.1.0'].sort(compareVersionsDesc)).toEqual([
      '1.10.0',
      '1.9.1',
      '1.2.0',
      '0.1.0',
    ]);
  });

  it('groups pack versions per name with their active activations by mode', () => {
    const rows = [
      { name: 'velocity', version: '1.0.0', state: 'retired', domain: 'purchase', pack_id: 'ns:rule_pack:velocity' },
      { name: 'velocity', version: '1.1.0', state: 'published', domain: 'purchase', title: 'Velocity' },
      { pack_id: 'ns:rule_pack:quiet_hours', version: '1.0.0', state: 'draft' },
    ].map(readPackVersion);
    const activations = [
      {
        activation_id: 'a1',
        pack_id: 'ns:rule_pack:velocity',
        version: '1.1.0',
        mode: 'enforce',
        state: 'active',
        target: { deployment: true },
      },
      {
        activation_id: 'a2',
        pack_id: 'ns:rule_pack:velocity',
        version: '1.1.0',
        mode: 'shadow',
        state: 'active',
        target: { principal_entity_id: 'ns:entity:person:alice' },
      },
      {
        activation_id: 'a3',
        pack_id: 'ns:rule_pack:velocity',
        version: '1.0.0',
        mode: 'enforce',
        state: 'deactivated',
      },
    ].map(readActivation);
    const packs = groupPacks(rows, activations);
    expect(packs.map((p) => [p.name, p.state, p.versions.map((v) => v.version), p.activations])).toEqual([
      ['quiet_hours', 'draft', ['1.0.0'], { enforce: 0, shadow: 0 }],
      ['velocity', 'published', ['1.1.0', '1.0.0'], { enforce: 1, shadow: 1 }],
    ]);
    expect(activations.map((a) => a.target)).toEqual(['deployment', 'ns:entity:person:alice', '—']);
  });

  it('reads a version given bare or with its document', () => {
    const document = {
      schema_version: 'ns.rule_pack.v1',
      pack_id: 'ns:rule_pack:velocity',
      version: '1.0.0',
      title: 'Velocity',
      domain: 'purchase',
      rules: [],
    };
    expect(readPackVersionBody(document)).toMatchObject({
      name: 'velocity',
      version: '1.0.0',
      title: 'Velocity',
      document,
    });
    expect(readPackVersionBody({ state: 'published', digest: 'sha-256:x', origin: 'shipped', document })).toMatchObject(
      {
        name: 'velocity',
        state: 'published',
        digest: 'sha-256:x',
        document,
      },
    );
  });

  it('reads counts before and after in every shape a report may use', () => {
    const want = [
      { key: 'allow_with_constraints', before: 10, after: 7 },
      { key: 'deny', before: 0, after: 3 },
    ];
    expect(
      readOutcomeRows({ allow_with_constraints: { before: 10, after: 7 }, deny: { before: 0, after: 3 } }),
    ).toEqual(want);
    expect(
      readOutcomeRows({ before: { allow_with_constraints: 10 }, after: { allow_with_constraints: 7, deny: 3 } }),
    ).toEqual(want);
    expect(
      readOutcomeRows([
        { outcome: 'allow_with_constraints', before: 10, after: 7 },
        { decision: 'deny', after: 3 },
      ]),
    ).toEqual(want);
    expect(readOutcomeRows({ 'velocity.hourly_count_exceeded': 3 })).toEqual([
      { key: 'velocity.hourly_count_exceeded', before: 0, after: 3 },
    ]);
    expect(readOutcomeRows(undefined)).toEqual([]);
    expect(readOutcomeRows('nonsense')).toEqual([]);
  });

  it('reads a running and a finished backtest', () => {
    expect(readBacktest({ state: 'running', progress: { done: 2500, total: 10000 } })).toEqual({
      state: 'running',
      done: 2500,
      total: 10000,
    });
    const done = readBacktest({
      state: 'done',
      progress: { done: 4, total: 4 },
      result: {
        decisions: 4,
        changed: 1,
        by_outcome: { allow_with_constraints: { before: 4, after: 3 }, deny: { before: 0, after: 1 } },
        by_reason: {},
        samples: [
          {
            policy_decision_id: 'ns:decision:1',
            before: { decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' },
            after: { decision: 'deny', reason: 'velocity.hourly_count_exceeded' },
          },
        ],
      },
    });
    expect(done.result?.samples).toEqual([
      {
        policy_decision_id: 'ns:decision:1',
        before: 'allow_with_constraints (scope_within_attenuated_authority)',
        after: 'deny (velocity.hourly_count_exceeded)',
      },
    ]);
    expect(readBacktest({ state: 'failed', error: 'store unavailable' })).toMatchObject({
      state: 'failed',
      error: 'store unavailable',
    });
  });

  it('reads a test run, counting results when the totals are absent', () => {
    expect(
      readTestRun({
        results: [
          {
            name: 'five an hour denies',
            passed: true,
            actual: { effect: 'deny', reason: 'velocity.hourly_count_exceeded' },
            expected: { effect: 'deny', reason: 'velocity.hourly_count_exceeded' },
          },
          { name: 'four passes', passed: false, actual: { effect: 'deny' }, expected: { effect: 'none' } },
        ],
      }),
    ).toEqual({
      passed: 1,
      failed: 1,
      results: [
        {
          name: 'five an hour denies',
          passed: true,
          actual: 'deny (velocity.hourly_count_exceeded)',
          expected: 'deny (velocity.hourly_count_exceeded)',
        },
        { name: 'four passes', passed: false, actual: 'deny', expected: 'none' },
      ],
    });
  });

  it('finds dictionary terms by code, label or attribute, and reads a dictionary bare or wrapped', () => {
    const terms = [
      { code: '5411', label: 'Grocery Stores, Supermarkets' },
      { code: '7995', label: 'Betting', family: 'gambling' },
    ];
    expect(searchTerms(terms, 'GROCERY').map((t) => t.code)).toEqual(['5411']);
    expect(searchTerms(terms, 'gambl').map((t) => t.code)).toEqual(['7995']);
    expect(searchTerms(terms, '  ')).toHaveLength(2);
    const doc = { schema_version: 'ns.dictionary.v1', dictionary_id: 'ns:dictionary:mcc', version: '1.0.0', terms };
    expect(readDictionaryBody(doc)).toBe(doc);
    expect(readDictionaryBody({ name: 'mcc', document: doc })).toBe(doc);
    expect(readDictionaryBody({ versions: [{ version: '1.0.0', document: doc }] })).toBe(doc);
  });
});
