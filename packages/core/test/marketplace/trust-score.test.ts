/**
 * The trust score (docs/marketplace.md) against a naive reference written from the documented formula, with
 * fast-check properties: an integer in 0..100, deterministic, monotone in each input, exactly five components whose
 * weights sum to 100, and recomputable from what it serves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  computeTrustScore,
  recomputeTrustScore,
  type PublisherTier,
  type TrustScoreInputs,
} from '../../src/index.ts';

const DAY = 86_400_000;
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** The formula of docs/marketplace.md, written again without looking at the implementation. */
function reference(i: TrustScoreInputs): number {
  const r = i.conformance.report;
  const conformance = r
    ? r.passed + r.failed === 0
      ? 0
      : Math.floor((100 * r.passed) / (r.passed + r.failed))
    : Math.min(50, 10 * i.conformance.declared_profiles);
  const s = i.security;
  const security = s
    ? (s.requires_signature_verification ? 35 : 0) +
      (s.requires_idempotency ? 35 : 0) +
      (s.requires_audit_event ? 30 : 0)
    : 0;
  const tier = { community: 20, verified: 70, certified: 100 }[i.publisher_tier];
  const ops = Math.floor((100 * (i.operations.succeeded + 1)) / (i.operations.succeeded + i.operations.failed + 2));
  const age = Math.max(0, Math.floor((Date.parse(i.as_of) - Date.parse(i.evidence.latest_at)) / DAY));
  const fresh = Math.max(0, 100 - Math.floor((100 * age) / 365));
  return Math.floor((30 * conformance + 25 * security + 15 * tier + 20 * ops + 10 * fresh) / 100);
}

const tiers: PublisherTier[] = ['community', 'verified', 'certified'];
const count = fc.integer({ min: 0, max: 100_000 });
const arbInputs: fc.Arbitrary<TrustScoreInputs> = fc
  .record({
    asOfDays: fc.integer({ min: 0, max: 2_000 }),
    evidenceDays: fc.integer({ min: -30, max: 2_000 }),
    report: fc.option(fc.record({ passed: count, failed: count }), { nil: null }),
    declared: fc.integer({ min: 0, max: 13 }),
    security: fc.option(fc.record({ sig: fc.boolean(), idem: fc.boolean(), audit: fc.boolean() }), { nil: null }),
    tier: fc.constantFrom(...tiers),
    succeeded: count,
    failed: count,
  })
  .map((a) => {
    const asOf = BASE + a.asOfDays * DAY;
    const latest = asOf - a.evidenceDays * DAY;
    return {
      as_of: iso(asOf),
      conformance: {
        report: a.report && { report_id: 'ns:conformance_report:x', ...a.report, finished_at: iso(latest) },
        declared_profiles: a.declared,
      },
      security: a.security && {
        risk_level: 'high',
        side_effect_level: 'move_money',
        requires_signature_verification: a.security.sig,
        requires_idempotency: a.security.idem,
        requires_audit_event: a.security.audit,
      },
      publisher_tier: a.tier,
      operations: { succeeded: a.succeeded, failed: a.failed, window_days: 30 },
      evidence: { latest_at: iso(latest), source: a.report ? 'conformance_report' : 'registration' },
    } satisfies TrustScoreInputs;
  });

const score = (i: TrustScoreInputs) => computeTrustScore(i).score;

describe('computeTrustScore', () => {
  it('is the documented formula: an integer 0..100, five components, weights summing to 100', () => {
    fc.assert(
      fc.property(arbInputs, (i) => {
        const s = computeTrustScore(i);
        expect(Number.isInteger(s.score) && s.score >= 0 && s.score <= 100).toBe(true);
        expect(s.score).toBe(reference(i));
        expect(s.components.map((c) => c.name)).toEqual([
          'conformance',
          'security_posture',
          'publisher_tier',
          'operational_record',
          'evidence_freshness',
        ]);
        expect(s.components.reduce((n, c) => n + c.weight, 0)).toBe(100);
        for (const c of s.components) expect(Number.isInteger(c.value) && c.value >= 0 && c.value <= 100).toBe(true);
        // recomputable by hand from the served components: floor(Σ weight × value / 100)
        expect(s.score).toBe(Math.floor(s.components.reduce((n, c) => n + c.weight * c.value, 0) / 100));
        expect(s.computed_at).toBe(i.as_of);
      }),
      { numRuns: 500 },
    );
  });

  it('is deterministic and recomputable from what it serves', () => {
    fc.assert(
      fc.property(arbInputs, (i) => {
        const a = computeTrustScore(structuredClone(i));
        expect(canonicalJson(computeTrustScore(i))).toBe(canonicalJson(a));
        const served = JSON.parse(JSON.stringify(a)) as typeof a;
        expect(canonicalJson(recomputeTrustScore(served))).toBe(canonicalJson(a));
      }),
      { numRuns: 300 },
    );
  });

  it('is monotone in each input', () => {
    const bump = fc.integer({ min: 1, max: 5_000 });
    fc.assert(
      fc.property(arbInputs, bump, (i, d) => {
        const up = (f: (x: TrustScoreInputs) => void) => {
          const copy = structuredClone(i);
          f(copy);
          return score(copy);
        };
        const s = score(i);
        if (i.conformance.report) {
          expect(up((x) => (x.conformance.report!.passed += d))).toBeGreaterThanOrEqual(s);
          expect(up((x) => (x.conformance.report!.failed += d))).toBeLessThanOrEqual(s);
        }
        expect(up((x) => (x.conformance.declared_profiles += 1))).toBeGreaterThanOrEqual(s);
        if (i.security) {
          for (const flag of [
            'requires_signature_verification',
            'requires_idempotency',
            'requires_audit_event',
          ] as const) {
            expect(up((x) => (x.security![flag] = true))).toBeGreaterThanOrEqual(s);
            expect(up((x) => (x.security![flag] = false))).toBeLessThanOrEqual(s);
          }
        }
        const rank = tiers.indexOf(i.publisher_tier);
        for (const t of tiers) {
          const other = up((x) => (x.publisher_tier = t));
          if (tiers.indexOf(t) >= rank) expect(other).toBeGreaterThanOrEqual(s);
          else expect(other).toBeLessThanOrEqual(s);
        }
        expect(up((x) => (x.operations.succeeded += d))).toBeGreaterThanOrEqual(s);
        expect(up((x) => (x.operations.failed += d))).toBeLessThanOrEqual(s);
        expect(
          up((x) => (x.evidence.latest_at = iso(Date.parse(x.evidence.latest_at) + d * 3_600_000))),
        ).toBeGreaterThanOrEqual(s);
        expect(up((x) => (x.as_of = iso(Date.parse(x.as_of) + d * 3_600_000)))).toBeLessThanOrEqual(s);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses counts that are not non-negative integers', () => {
    const [sample] = fc.sample(arbInputs, { numRuns: 1, seed: 7 });
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) {
      const i = structuredClone(sample!);
      i.operations.failed = bad;
      expect(() => computeTrustScore(i)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    }
  });
});
