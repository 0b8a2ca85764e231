// The policy documents: every refusal names its member by pointer; a pack's tests run exactly as decide evaluates.
import { describe, expect, it } from 'vitest';
import {
  MAX_PACK_BYTES,
  decideGeneric,
  dictionarySnapshot,
  pathsRead,
  policyDocumentDigest,
  rulePaths,
  runPackTests,
  validateDictionary,
  validateRulePack,
  validateSectorPack,
  type RulePackDocument,
} from '../../src/index.ts';
import { countryDictionary, velocityPack } from './fixtures.ts';

const pointers = (problems: { pointer: string }[]) => problems.map((p) => p.pointer);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const edited = (edit: (doc: any) => void): unknown => {
  const doc = structuredClone(velocityPack());
  edit(doc);
  return doc;
};

describe('validateRulePack', () => {
  it('accepts a valid pack, and a compliance mapping of the generic domain', () => {
    expect(validateRulePack(velocityPack())).toEqual([]);
    expect(
      validateRulePack({
        schema_version: 'ns.rule_pack.v1',
        pack_id: 'ns:rule_pack:soc2',
        version: '1.0.0',
        domain: 'generic',
        title: 'SOC 2',
        description: 'controls',
        dictionaries: [],
        rules: [],
        tests: [],
        framework: 'soc2',
        controls: [],
        source: {},
        scope_note: 'x',
      }),
    ).toEqual([]);
  });

  it.each([
    ['not an object', () => 7, ['']],
    [
      'schema',
      () =>
        edited((d) => {
          d.schema_version = 'ns.rule_pack.v2';
        }),
      ['/schema_version'],
    ],
    [
      'pack_id',
      () =>
        edited((d) => {
          d.pack_id = 'ns:rule_pack:Velocity';
        }),
      ['/pack_id'],
    ],
    [
      'version',
      () =>
        edited((d) => {
          d.version = '1.0';
        }),
      ['/version'],
    ],
    [
      'domain',
      () =>
        edited((d) => {
          d.domain = 'payments';
        }),
      ['/domain'],
    ],
    [
      'unknown member',
      () =>
        edited((d) => {
          d.extra = 1;
        }),
      ['/extra'],
    ],
    [
      'dictionary ref',
      () =>
        edited((d) => {
          d.dictionaries = ['ns:dictionary:country', 'ns:dictionary:country@1.0.0', 'ns:dictionary:country@2.0.0'];
        }),
      ['/dictionaries/0', '/dictionaries/2'],
    ],
    [
      'built-in reason code declared',
      () =>
        edited((d) => {
          d.reasons.push({ code: 'merchant_unknown', decision: 'deny', description: 'x' });
        }),
      ['/reasons/2/code'],
    ],
    [
      'reason declared twice',
      () =>
        edited((d) => {
          d.reasons.push({ ...d.reasons[0] });
        }),
      ['/reasons/2/code'],
    ],
    [
      'reason code shape',
      () =>
        edited((d) => {
          d.reasons[0].code = 'Hourly';
        }),
      ['/reasons/0/code', '/rules/0/reason'],
    ],
    [
      'undeclared reason',
      () =>
        edited((d) => {
          d.rules[0].reason = 'velocity.other';
        }),
      ['/rules/0/reason'],
    ],
    [
      'reason of another pack',
      () =>
        edited((d) => {
          d.rules[0].reason = 'night.hourly_count_exceeded';
        }),
      ['/rules/0/reason'],
    ],
    [
      'built-in reason on a rule',
      () =>
        edited((d) => {
          d.rules[0].reason = 'merchant_unknown';
        }),
      ['/rules/0/reason'],
    ],
    [
      'reason declared for another effect',
      () =>
        edited((d) => {
          d.rules[0].reason = 'velocity.hourly_step_up';
        }),
      ['/rules/0/reason'],
    ],
    [
      'deny without reason',
      () =>
        edited((d) => {
          delete d.rules[0].reason;
        }),
      ['/rules/0/reason'],
    ],
    [
      'reason on obligate',
      () =>
        edited((d) => {
          d.rules[2].reason = 'velocity.hourly_step_up';
        }),
      ['/rules/2/reason'],
    ],
    [
      'permit in a purchase pack loosens',
      () =>
        edited((d) => {
          d.rules[1].effect = 'permit';
          delete d.rules[1].reason;
        }),
      ['/rules/1/effect'],
    ],
    [
      'rule outside the profile',
      () =>
        edited((d) => {
          d.rules[1].when = { and: [true, { '==': [1, 1] }] };
        }),
      ['/rules/1/when/and/1/=='],
    ],
    [
      'missing when',
      () =>
        edited((d) => {
          delete d.rules[0].when;
        }),
      ['/rules/0/when'],
    ],
    [
      'duplicate rule id',
      () =>
        edited((d) => {
          d.rules[1].rule_id = 'hourly-deny';
        }),
      ['/rules/1/rule_id'],
    ],
    [
      'obligation without type',
      () =>
        edited((d) => {
          d.rules[2].obligations = [{ channel: 'email' }];
        }),
      ['/rules/2/obligations/0'],
    ],
    [
      'empty obligate',
      () =>
        edited((d) => {
          d.rules[2].obligations = [];
          delete d.rules[2].stop_conditions;
        }),
      ['/rules/2/obligations'],
    ],
    [
      'stop condition listed twice',
      () =>
        edited((d) => {
          d.rules[2].stop_conditions = ['a', 'a'];
        }),
      ['/rules/2/stop_conditions/1'],
    ],
    [
      'no tests',
      () =>
        edited((d) => {
          d.tests = [];
        }),
      ['/tests'],
    ],
    [
      'test expect effect',
      () =>
        edited((d) => {
          d.tests[0].expect.effect = 'permit';
        }),
      ['/tests/0/expect/effect'],
    ],
    [
      'test without context',
      () =>
        edited((d) => {
          delete d.tests[0].context;
        }),
      ['/tests/0/context'],
    ],
  ])('refuses %s with its pointer', (_name, make, expected) => {
    expect(pointers(validateRulePack(make()))).toEqual(expected);
  });

  it('refuses a pack over 256 KiB', () => {
    const doc = edited((d) => {
      d.description = 'x'.repeat(MAX_PACK_BYTES);
    });
    expect(validateRulePack(doc)).toContainEqual({
      pointer: '',
      message: expect.stringContaining(`at most ${MAX_PACK_BYTES}`),
    });
  });

  it('checks obligation types, stop conditions, dictionaries and taxonomy against what the caller knows', () => {
    const doc = edited((d) => {
      d.rules[0].taxonomy = ['velocity', 'nope'];
    });
    const problems = validateRulePack(doc, {
      dictionaries: new Set(['ns:dictionary:mcc@1.0.0']),
      obligationTypes: new Set(['audit.emit']),
      stopConditions: new Set(['actor.stop_signal']),
      taxonomy: new Set(['velocity']),
    });
    expect(pointers(problems)).toEqual([
      '/dictionaries/0',
      '/rules/0/taxonomy/1',
      '/rules/2/obligations/0/type',
      '/rules/2/stop_conditions/0',
    ]);
  });
});

describe('validateDictionary and validateSectorPack', () => {
  it('accept valid documents and name each bad member', () => {
    expect(validateDictionary(countryDictionary())).toEqual([]);
    const bad = {
      ...countryDictionary(),
      dictionary_id: 'ns:dictionary:',
      terms: [{ code: 'DE', label: 'x' }, { code: 'DE', label: 'y' }, { code: 'a b' }],
    };
    expect(pointers(validateDictionary(bad))).toEqual([
      '/dictionary_id',
      '/terms/1/code',
      '/terms/2/code',
      '/terms/2/label',
    ]);
    const sector = {
      schema_version: 'ns.sector_pack.v1',
      sector_pack_id: 'ns:sector_pack:groceries',
      version: '1.0.0',
      title: 'Groceries',
      sector: 'groceries',
      rule_packs: ['ns:rule_pack:velocity@1.0.0'],
      scope_templates: [{ name: 'weekly', scope: {} }],
      dictionaries: ['ns:dictionary:mcc@1.0.0'],
    };
    expect(validateSectorPack(sector, { rulePacks: new Set(['ns:rule_pack:velocity@1.0.0']) })).toEqual([]);
    expect(
      pointers(
        validateSectorPack({
          ...sector,
          rule_packs: ['ns:rule_pack:velocity@1.0.0', 'ns:rule_pack:velocity@1.1.0', 'velocity'],
          scope_templates: [{ name: 'w', scope: 1 }],
        }),
      ),
    ).toEqual(['/rule_packs/1', '/rule_packs/2', '/scope_templates/0/scope']);
    expect(pointers(validateSectorPack(sector, { rulePacks: new Set() }))).toEqual(['/rule_packs/0']);
  });
});

describe('digests, dictionary snapshots, rule paths', () => {
  it('digest ignores the signature and changes with any member', () => {
    const doc = velocityPack();
    const digest = policyDocumentDigest(doc);
    expect(digest).toMatch(/^sha-256:[A-Za-z0-9_-]{43}$/);
    expect(policyDocumentDigest({ ...doc, signature: { algorithm: 'ed25519', key_id: 'k', signature: 'x' } })).toBe(
      digest,
    );
    expect(policyDocumentDigest({ ...doc, version: '1.0.1' })).not.toBe(digest);
  });

  it('dictionarySnapshot keeps term order and attributes, keyed by code', () => {
    const snap = dictionarySnapshot(countryDictionary());
    expect(snap).toEqual({
      dictionary_id: 'ns:dictionary:country',
      version: '1.0.0',
      digest: policyDocumentDigest(countryDictionary()),
      codes: ['DE', 'FR', 'US'],
      terms: {
        DE: { label: 'Germany', eu: true },
        FR: { label: 'France', eu: true },
        US: { label: 'United States', eu: false },
      },
    });
  });

  it('rulePaths lists top-scope paths; pathsRead sees parents and the whole context', () => {
    const doc = edited((d) => {
      d.rules[0].when = { some: [{ var: 'request.basket.items' }, { '>': [{ var: 'price' }, 1] }] };
    });
    const paths = rulePaths(doc);
    expect(paths).toEqual([
      'request.basket.items',
      'facts.counters.purchases_1h',
      'facts.merchant.jurisdiction',
      'dict.country.codes',
    ]);
    expect(pathsRead(paths, 'facts.counters')).toBe(true);
    expect(pathsRead(paths, 'facts.local_time')).toBe(false);
    expect(pathsRead(['facts'], 'facts.local_time')).toBe(true);
    expect(pathsRead([''], 'facts.counters')).toBe(true);
  });
});

describe('runPackTests', () => {
  it("passes the pack's own tests with its dictionaries and reports a failing one with its actual outcome", () => {
    const dictionaries = { country: dictionarySnapshot(countryDictionary()) };
    expect(runPackTests(velocityPack(), dictionaries)).toMatchObject({ passed: 4, failed: 0 });
    // without the dictionary, `dict.country.codes` reads null: every merchant is foreign
    const withoutDict = runPackTests(velocityPack(), {});
    expect(withoutDict.results.filter((r) => !r.passed).map((r) => r.name)).toEqual(['quiet hour']);
    const wrong = velocityPack();
    wrong.tests[1]!.expect = { effect: 'deny', reason: 'velocity.hourly_count_exceeded' };
    const report = runPackTests(wrong, dictionaries);
    expect(report).toMatchObject({ passed: 3, failed: 1 });
    expect(report.results[1]).toEqual({
      name: 'busy hour',
      passed: false,
      actual: { effect: 'require_approval', reason: 'velocity.hourly_step_up' },
      expected: { effect: 'deny', reason: 'velocity.hourly_count_exceeded' },
    });
  });
});

describe('decideGeneric', () => {
  const generic = (rules: RulePackDocument['rules']): RulePackDocument => ({
    schema_version: 'ns.rule_pack.v1',
    pack_id: 'ns:rule_pack:doors',
    version: '1.0.0',
    domain: 'generic',
    title: 'd',
    description: 'd',
    dictionaries: [],
    reasons: [{ code: 'closed', decision: 'deny', description: 'closed' }],
    rules,
    tests: [],
  });
  const permit = {
    rule_id: 'open',
    title: 'o',
    description: 'o',
    when: { '===': [{ var: 'request.door' }, 'front'] },
    effect: 'permit' as const,
  };
  const deny = {
    rule_id: 'night',
    title: 'n',
    description: 'n',
    when: { '>=': [{ var: 'facts.hour' }, 22] },
    effect: 'deny' as const,
    reason: 'doors.closed' as const,
  };

  it('default deny, permit when a permit rule matched, deny overrides', () => {
    const pack = generic([permit, deny]);
    expect(decideGeneric([pack], { request: { door: 'back' }, facts: { hour: 10 } })).toEqual({
      decision: 'deny',
      rules: [],
    });
    expect(decideGeneric([pack], { request: { door: 'front' }, facts: { hour: 10 } })).toMatchObject({
      decision: 'permit',
    });
    expect(decideGeneric([pack], { request: { door: 'front' }, facts: { hour: 23 } })).toMatchObject({
      decision: 'deny',
      reason: 'doors.closed',
    });
    expect(decideGeneric([velocityPack()], { request: {}, facts: {} })).toEqual({ decision: 'deny', rules: [] });
  });

  it('an erroring permit never permits; an erroring deny denies', () => {
    const throwing = { '<': [{ var: 'request.context' }, 1] };
    const ctx = { request: { door: 'front', context: { toString: 1 } }, facts: { hour: 1 } };
    expect(decideGeneric([generic([{ ...permit, when: throwing }])], ctx)).toEqual({ decision: 'deny', rules: [] });
    expect(decideGeneric([generic([permit, { ...deny, when: throwing }])], ctx)).toMatchObject({
      decision: 'deny',
      reason: 'doors.closed',
      rules: [{ rule_id: 'open' }, { rule_id: 'night', error: true }],
    });
  });
});
