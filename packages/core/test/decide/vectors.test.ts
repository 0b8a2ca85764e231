import { describe, expect, it } from 'vitest';
import { CHECK_ORDER, decide, REASON_CODES, type ReasonCode } from '../../src/decide/index.ts';
import { loadDecisionVectors } from './load-vectors.ts';

const vectors = loadDecisionVectors();

describe('decision vectors (vectors/decisions)', () => {
  it('holds at least 40 vectors', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(40);
  });

  it.each(vectors.map((v) => [v.file, v] as const))('%s', (_file, vector) => {
    const { request, snapshot, now } = vector.input;
    const result = decide(request, snapshot, now);
    const { want } = vector;
    expect({ decision: result.decision, reason: result.reason }).toEqual({
      decision: want.decision,
      reason: want.reason,
    });
    if (want.obligations !== undefined) expect(result.obligations).toEqual(want.obligations);
    if (want.stop_conditions !== undefined) expect(result.stop_conditions).toEqual(want.stop_conditions);
    if (want.reservation === null) expect(result).not.toHaveProperty('reservation');
    else if (want.reservation !== undefined) expect(result.reservation).toEqual(want.reservation);

    // The diagnostics list every check once, in order; the decisive one names the reason, the rest are skipped.
    const checks = result.diagnostics.checks;
    expect(checks.map((c) => c.check)).toEqual([...CHECK_ORDER]);
    const decisiveCheck = REASON_CODES[result.reason as ReasonCode].check;
    if (decisiveCheck === 'conclusion') {
      expect(checks.every((c) => c.outcome !== 'fail')).toBe(true);
    } else {
      const at = checks.findIndex((c) => c.outcome === 'fail');
      expect(checks[at]).toMatchObject({ check: decisiveCheck, reason: result.reason });
      expect(checks.slice(at + 1).every((c) => c.outcome === 'skip')).toBe(true);
      expect(checks.slice(0, at).every((c) => c.outcome !== 'fail')).toBe(true);
    }
  });

  it('reaches every reason code', () => {
    const reached = new Set(vectors.map((v) => v.want.reason));
    const missing = (Object.keys(REASON_CODES) as ReasonCode[]).filter((code) => !reached.has(code));
    expect(missing).toEqual([]);
  });

  it('uses only known reason codes, the decision each code carries, and known want members', () => {
    const members = ['decision', 'reason', 'obligations', 'stop_conditions', 'reservation'];
    for (const v of vectors) {
      expect(
        Object.keys(v.want).filter((key) => !members.includes(key)),
        v.file,
      ).toEqual([]);
      expect(typeof v.desc, v.file).toBe('string');
      expect(Object.hasOwn(REASON_CODES, v.want.reason), v.file).toBe(true);
      expect(REASON_CODES[v.want.reason as ReasonCode].decision, v.file).toBe(v.want.decision);
    }
  });
});
