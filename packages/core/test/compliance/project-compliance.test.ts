import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AarError } from '../../src/errors/aar-error.ts';
import { projectCompliance } from '../../src/compliance/project-compliance.ts';
import { resolvePointer } from '../../src/compliance/resolve-pointer.ts';
import type { RulePack } from '../../src/compliance/rule-pack.ts';

interface Want {
  status: string;
  reason?: string;
  packs?: { applicable: number; satisfying: number };
  evidence_pointers?: string[];
  unmet_pointers?: string[];
}
interface ProjectionCase {
  desc: string;
  rule_pack: RulePack;
  packs: Array<{ evidence_pack_id: string }>;
  want: Record<string, Want>;
}
const { cases } = JSON.parse(
  readFileSync(new URL('../../../../vectors/compliance/projection-cases.json', import.meta.url), 'utf8'),
) as { cases: ProjectionCase[] };

describe('projectCompliance (vectors/compliance/projection-cases.json)', () => {
  it.each(cases.map((c) => [c.desc, c] as const))('%s', (_desc, c) => {
    const body = projectCompliance(c.rule_pack, c.packs);
    expect(body.evidence_pack_ids).toEqual(c.packs.map((p) => p.evidence_pack_id));
    for (const [controlId, want] of Object.entries(c.want)) {
      const got = body.controls.find((x) => x.control_id === controlId)!;
      expect(got.status).toBe(want.status);
      if (want.status !== 'satisfied') expect(got.reason).toEqual(expect.any(String));
      else expect(got.reason).toBeUndefined();
      if (want.reason !== undefined) expect(got.reason).toBe(want.reason);
      if (want.packs) expect(got.packs).toEqual(want.packs);
      if (want.evidence_pointers) expect(got.evidence.map((e) => e.pointer)).toEqual(want.evidence_pointers);
      if (want.unmet_pointers) expect(got.unmet.map((e) => e.pointer)).toEqual(want.unmet_pointers);
      // INVARIANT: evidence pointers resolve inside the pack they name
      for (const e of got.evidence) {
        const pack = c.packs.find((p) => p.evidence_pack_id === e.evidence_pack_id);
        expect(resolvePointer(pack, e.pointer).found).toBe(true);
      }
    }
    const counted = body.controls.reduce<Record<string, number>>(
      (n, x) => ({ ...n, [x.status]: (n[x.status] ?? 0) + 1 }),
      {},
    );
    for (const [status, n] of Object.entries(body.summary)) expect(n).toBe(counted[status] ?? 0);
  });

  it('binds the rule pack by digest: any change to it changes the reference', () => {
    const c = cases[0]!;
    const a = projectCompliance(c.rule_pack, c.packs).rule_pack.digest;
    const edited = { ...c.rule_pack, controls: [{ ...c.rule_pack.controls[0]!, title: 'edited' }] };
    expect(a).toMatch(/^sha-256:[A-Za-z0-9_-]{43}$/);
    expect(projectCompliance(edited, c.packs).rule_pack.digest).not.toBe(a);
  });

  it('refuses an unknown predicate instead of passing it', () => {
    const c = cases[0]!;
    const control = c.rule_pack.controls[0]!;
    const bad = {
      ...c.rule_pack,
      controls: [
        {
          ...control,
          evidence: {
            ...control.evidence,
            requirements: [{ pointer: '/request', predicate: { op: 'matches_regex' }, note: 'n' }],
          },
        },
      ],
    } as unknown as RulePack;
    expect(() => projectCompliance(bad, c.packs)).toThrow(AarError);
  });
});
