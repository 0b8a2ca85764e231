/**
 * Core report assembly: periods (calendar UTC, fixed intervals, the hourly floor), the merge of batch projections
 * (equal to one projection of all the packs, over the compliance projection vectors), and counts from rows.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AarError } from '../../src/errors/aar-error.ts';
import { projectCompliance } from '../../src/compliance/project-compliance.ts';
import type { RulePack } from '../../src/compliance/rule-pack.ts';
import { assembleReport } from '../../src/reports/assemble-report.ts';
import { frameworkCoverage, sampledRanks } from '../../src/reports/control-coverage.ts';
import { nextPeriod, parseEvery, periodContaining } from '../../src/reports/report-period.ts';

const at = (iso: string) => new Date(iso);
const iso = (p: { start: Date; end: Date }) => [p.start.toISOString(), p.end.toISOString()];

describe('parseEvery', () => {
  it.each(['hour', 'day', 'week', 'month', 'PT1H', 'PT60M', 'PT3600S', 'P1D', 'P1W', 'P1DT12H', 'P366D'])(
    'accepts %s',
    (every) => expect(() => parseEvery(every)).not.toThrow(),
  );
  it.each(['PT59M', 'PT59M59S', 'PT1S', 'PT0H', 'P0D'])(
    'refuses %s as more often than hourly, naming /every',
    (every) => {
      try {
        parseEvery(every);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(AarError);
        const e = error as AarError;
        expect(e.code).toBe('invalid_request');
        expect(e.message).toMatch(/more often than once an hour/);
        expect(e.errors).toEqual([{ path: '/every', message: expect.any(String) }]);
      }
    },
  );
  it.each(['minute', 'P', 'PT', 'P1M', 'P1Y', '1h', 'P367D', ''])('refuses %j naming the field', (every) => {
    expect(() => parseEvery(every, '/x')).toThrow(/\/x/);
  });
});

describe('periods', () => {
  it('calendar periods are UTC-aligned, whatever the instant', () => {
    const t = at('2026-11-28T10:15:02.114Z'); // a Saturday
    expect(iso(periodContaining(parseEvery('hour'), t, t))).toEqual([
      '2026-11-28T10:00:00.000Z',
      '2026-11-28T11:00:00.000Z',
    ]);
    expect(iso(periodContaining(parseEvery('day'), t, t))).toEqual([
      '2026-11-28T00:00:00.000Z',
      '2026-11-29T00:00:00.000Z',
    ]);
    expect(iso(periodContaining(parseEvery('week'), t, t))).toEqual([
      '2026-11-23T00:00:00.000Z',
      '2026-11-30T00:00:00.000Z',
    ]);
    expect(iso(periodContaining(parseEvery('month'), t, t))).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-12-01T00:00:00.000Z',
    ]);
    // a Monday is its own week's start; a Sunday belongs to the week before
    expect(iso(periodContaining(parseEvery('week'), at('2026-11-30T00:00:00Z'), t))[0]).toBe(
      '2026-11-30T00:00:00.000Z',
    );
    expect(iso(periodContaining(parseEvery('week'), at('2026-11-29T23:59:59Z'), t))[0]).toBe(
      '2026-11-23T00:00:00.000Z',
    );
  });

  it('months and years roll over, February included', () => {
    const month = parseEvery('month');
    let p = periodContaining(month, at('2027-12-31T23:59:59.999Z'), at('2027-01-01T00:00:00Z'));
    expect(iso(p)).toEqual(['2027-12-01T00:00:00.000Z', '2028-01-01T00:00:00.000Z']);
    p = nextPeriod(month, nextPeriod(month, p));
    expect(iso(p)).toEqual(['2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
    const day = parseEvery('day');
    expect(iso(nextPeriod(day, periodContaining(day, at('2028-02-28T12:00:00Z'), at('2028-02-28T12:00:00Z'))))).toEqual(
      ['2028-02-29T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
    );
  });

  it('intervals run back to back from the anchor; an instant before it gets the first period', () => {
    const every = parseEvery('PT6H');
    const anchor = at('2026-11-28T01:00:00Z');
    expect(iso(periodContaining(every, at('2026-11-28T14:30:00Z'), anchor))).toEqual([
      '2026-11-28T13:00:00.000Z',
      '2026-11-28T19:00:00.000Z',
    ]);
    expect(iso(periodContaining(every, at('2026-11-27T00:00:00Z'), anchor))[0]).toBe('2026-11-28T01:00:00.000Z');
    const p = nextPeriod(every, periodContaining(every, anchor, anchor));
    expect(iso(p)).toEqual(['2026-11-28T07:00:00.000Z', '2026-11-28T13:00:00.000Z']);
  });
});

interface ProjectionCase {
  desc: string;
  rule_pack: RulePack;
  packs: Array<{ evidence_pack_id: string }>;
}
const { cases } = JSON.parse(
  readFileSync(new URL('../../../../vectors/compliance/projection-cases.json', import.meta.url), 'utf8'),
) as { cases: ProjectionCase[] };

describe('frameworkCoverage (over vectors/compliance/projection-cases.json)', () => {
  it.each(cases.map((c) => [c.desc, c] as const))('%s: batches of one merge to the projection of all', (_d, c) => {
    const whole = projectCompliance(c.rule_pack, c.packs);
    const batches = c.packs.map((p) => projectCompliance(c.rule_pack, [p]));
    const merged = frameworkCoverage(c.rule_pack, batches, c.packs.length);
    expect(merged.evidence_packs).toEqual({ in_period: c.packs.length, projected: c.packs.length });
    expect(merged.summary).toEqual(whole.summary);
    expect(merged.rule_pack).toEqual(whole.rule_pack);
    expect(merged.controls.map((x) => [x.control_id, x.status, x.packs])).toEqual(
      whole.controls.map((x) => [x.control_id, x.status, x.packs]),
    );
    for (const control of merged.controls) expect(control.reason === undefined).toBe(control.status === 'satisfied');
  });

  it('refuses a batch of another rule pack, and more projected packs than the period holds', () => {
    const [a, b] = cases.filter((c) => c.packs.length > 0 && c.rule_pack.controls.length > 0);
    const batch = projectCompliance(a!.rule_pack, a!.packs);
    expect(() => frameworkCoverage(a!.rule_pack, [batch], 0)).toThrow(AarError);
    if (b && b.rule_pack.controls[0]?.control_id !== a!.rule_pack.controls[0]?.control_id) {
      expect(() => frameworkCoverage(b.rule_pack, [batch], 100)).toThrow(/not of rule pack/);
    }
  });

  it('samples evenly beyond the maximum', () => {
    expect(sampledRanks(2000, 2000)).toEqual({ all: true });
    expect(sampledRanks(2001, 2000)).toEqual({ all: false, step: 2 });
    expect(sampledRanks(10_000, 2000)).toEqual({ all: false, step: 5 });
  });
});

describe('assembleReport', () => {
  const meta = {
    report_id: 'ns:compliance_report:019ad5c0-0001-7c3e-8d2a-5b6c7d8e9f01',
    issuer: 'https://aar.example.com',
    generated_at: '2026-11-29T00:00:31.207Z',
    schedule_id: null,
    period: { start: '2026-11-28T00:00:00.000Z', end: '2026-11-29T00:00:00.000Z', every: null },
  };

  it('counts every key, sums money per currency with BigInt, orders denials and lapses approvals', () => {
    const report = assembleReport(
      meta,
      {
        decisions: [
          { decision: 'allow_with_constraints', outcome: 'executed', currency: 'EUR', count: 2, amount_minor: '3000' },
          { decision: 'allow_with_constraints', outcome: 'reserved', currency: 'EUR', count: '1', amount_minor: 999n },
          { decision: 'allow_with_constraints', outcome: 'executed', currency: 'JPY', count: 1, amount_minor: 1500 },
          { decision: 'allow_with_constraints', outcome: 'none', currency: null, count: 4, amount_minor: null },
          { decision: 'deny', outcome: 'none', currency: 'EUR', count: 3, amount_minor: 9000 },
          { decision: 'require_approval', outcome: 'none', currency: 'EUR', count: 1, amount_minor: 4500 },
        ],
        denials: [
          { reason: 'merchant_category_blocked', count: 1 },
          { reason: 'amount_above_agent_threshold', count: 1 },
          { reason: 'daily_limit_exceeded', count: '1' },
        ],
        approvals: [
          { status: 'pending', lapsed: true, count: 1 },
          { status: 'pending', lapsed: false, count: 2 },
          { status: 'consumed', lapsed: true, count: 1 },
        ],
        revocations: { grants: '3', operations: 1 },
      },
      [],
    );
    expect(report.decisions).toEqual({
      total: 12,
      by_decision: { allow_with_constraints: 8, require_approval: 1, deny: 3 },
      by_outcome: { none: 8, reserved: 1, executed: 3, failed: 0, refunded: 0 },
      allowed_amounts: [
        { currency: 'EUR', amount_minor: 3999, count: 3 },
        { currency: 'JPY', amount_minor: 1500, count: 1 },
      ],
      executed_amounts: [
        { currency: 'EUR', amount_minor: 3000, count: 2 },
        { currency: 'JPY', amount_minor: 1500, count: 1 },
      ],
    });
    expect(report.denials.by_reason.map((r) => r.reason)).toEqual([
      'amount_above_agent_threshold',
      'daily_limit_exceeded',
      'merchant_category_blocked',
    ]);
    expect(report.approvals).toEqual({
      total: 4,
      by_status: { pending: 2, approved: 0, rejected: 0, expired: 1, consumed: 1 },
    });
    expect(report.revocations).toEqual({ grants_revoked: 3, revoke_operations: 1 });
  });

  it('refuses a sum beyond the exact JSON integers, and an unknown decision', () => {
    const big = { decision: 'allow_with_constraints', outcome: 'none', currency: 'EUR', count: 1 };
    const rows = (amount: string) => ({
      decisions: [{ ...big, amount_minor: amount }],
      denials: [],
      approvals: [],
      revocations: { grants: 0, operations: 0 },
    });
    expect(() => assembleReport(meta, rows('9007199254740991'), [])).not.toThrow();
    expect(() => assembleReport(meta, rows('9007199254740992'), [])).toThrow(/exactly/);
    expect(() =>
      assembleReport(meta, { ...rows('1'), decisions: [{ ...big, decision: 'maybe', amount_minor: 1 }] }, []),
    ).toThrow(/unknown decision/);
  });
});
