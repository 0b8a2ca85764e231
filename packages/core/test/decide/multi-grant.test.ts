/**
 * Several grants covering one request (aar-decide/1.2.0): decide keeps the most permissive outcome among the chains
 * the snapshot carries, names the chain that decided, and the decision map refers to it. Older snapshots (no
 * `alternatives`) decide exactly as before, and replay of a pre-1.2.0 deny that bound a basket still matches.
 */
import { describe, expect, it } from 'vitest';
import { decide, decidingChain, type DecisionResult } from '../../src/decide/index.ts';
import { buildDecisionMap } from '../../src/decision-map/index.ts';
import { replayDecision } from '../../src/evidence/replay-decision.ts';
import { eurRootCase, grantAt, type DecisionInput } from './fixtures.ts';
import { loadDecisionVectors } from './load-vectors.ts';

const vectors = loadDecisionVectors();
const multi = (file: string): DecisionInput => {
  const found = vectors.find((v) => v.file === file);
  if (!found) throw new Error(`no vector ${file}`);
  return structuredClone(found.input);
};

const run = (input: DecisionInput): DecisionResult => decide(input.request, input.snapshot, input.now);

const MAP_IDS = {
  decision_map_id: 'ns:decision_map:01963a60-0000-7000-8000-000000000001',
  policy_decision_id: 'ns:decision:01963a60-0000-7000-8000-000000000002',
  audit_ref: 'ns:audit:01963a60-0000-7000-8000-000000000003',
  evidence_refs: ['ns:evidence-pack:01963a60-0000-7000-8000-000000000004'],
  issued_at: '2026-04-15T10:00:00.012Z',
};

describe('decide under several covering grants', () => {
  it('names every candidate, the one kept, and its leaf grant', () => {
    const input = multi('multi-grant-newer-in-another-currency.json');
    const [newer, older] = [input.snapshot.grants[0]!.grant_id, input.snapshot.alternatives![0]![0]!.grant_id];
    const result = run(input);
    expect(result.diagnostics.candidates).toEqual([
      { grant_id: newer, decision: 'deny', reason: 'currency_mismatch' },
      { grant_id: older, decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' },
    ]);
    expect(result.diagnostics.chosen_candidate).toBe(1);
    expect(result.diagnostics.grant_id).toBe(older);
    // the checks shown are those of the chain that decided
    expect(result.diagnostics.checks.every((c) => c.outcome !== 'fail')).toBe(true);
    expect(decidingChain(input.snapshot, result)).toEqual(input.snapshot.alternatives![0]);
  });

  it('the decision map refers to the grant that decided, not the newest', () => {
    const input = multi('multi-grant-newer-in-another-currency.json');
    const older = input.snapshot.alternatives![0]![0]!.grant_id;
    const result = run(input);
    const map = buildDecisionMap({ ...MAP_IDS, request: input.request, snapshot: input.snapshot, result });
    const node = (type: string) => map.nodes.find((n) => n.type === type);
    expect(node('delegation')).toEqual({ type: 'delegation', ref: older, short: 'direct grant' });
    expect(node('scope')?.ref).toBe(`ns:scope:${older.slice('ns:authority:grant:'.length)}`);
    expect(node('scope')?.short).toBe('within 150.00 EUR per purchase');
  });

  it('counts each candidate against its own daily spend', () => {
    const input = multi('multi-grant-tie-goes-to-newest.json');
    // the newer grant (300.00 a day) has spent 280.00: it denies, the older still allows
    grantAt(input, 0).spent_today = { minor: 28000, currency: 'EUR' };
    const result = run(input);
    expect(result.decision).toBe('allow_with_constraints');
    expect(result.reservation?.grant_ids).toEqual([input.snapshot.alternatives![0]![0]!.grant_id]);
    expect(result.diagnostics.candidates?.[0]?.reason).toBe('daily_limit_exceeded');
  });

  it('a revoked older grant never allows, even when the newer denies', () => {
    const input = multi('multi-grant-newer-in-another-currency.json');
    input.snapshot.alternatives![0]![0]!.state = 'revoked';
    expect(run(input)).toMatchObject({ decision: 'deny', reason: 'currency_mismatch' });
  });

  it('reads a malformed alternatives member as no option (fail closed)', () => {
    const input = multi('multi-grant-newer-in-another-currency.json');
    (input.snapshot as unknown as Record<string, unknown>).alternatives = [{ not: 'a chain' }];
    const result = run(input);
    expect(result).toMatchObject({ decision: 'deny', reason: 'currency_mismatch' });
    expect(result.diagnostics.candidates?.[1]).toEqual({
      grant_id: null,
      decision: 'deny',
      reason: 'authority_not_found',
    });
    (input.snapshot as unknown as Record<string, unknown>).alternatives = 'everything';
    expect(run(input)).toMatchObject({ decision: 'deny', reason: 'currency_mismatch' });
  });

  it('reads a hole in a sparse alternatives array (a JS caller) as no option, and does not throw', () => {
    const input = multi('multi-grant-newer-in-another-currency.json');
    const older = input.snapshot.alternatives![0]!;
    // eslint-disable-next-line no-sparse-arrays
    (input.snapshot as unknown as Record<string, unknown>).alternatives = [, older];
    const result = run(input);
    expect(result).toMatchObject({ decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' });
    expect(result.diagnostics.candidates?.[1]).toEqual({
      grant_id: null,
      decision: 'deny',
      reason: 'authority_not_found',
    });
    expect(result.diagnostics.chosen_candidate).toBe(2);
  });

  it('decides a snapshot without alternatives exactly as before (no candidates listed)', () => {
    const input = eurRootCase();
    const withEmpty = eurRootCase();
    withEmpty.snapshot.alternatives = [];
    const result = run(input);
    expect(result.diagnostics.candidates).toBeUndefined();
    expect(result.diagnostics.grant_id).toBe(grantAt(input, 0).grant_id);
    expect(run(withEmpty)).toEqual(result);
  });
});

describe('a deny binds no basket', () => {
  const withBasket = (): DecisionInput => {
    const input = eurRootCase();
    input.request.basket = { items: [{ sku: 'apples', qty: 2 }] };
    return input;
  };

  it('an allow and a require_approval bind the basket; a deny does not', () => {
    const allowed = run(withBasket());
    expect(allowed.obligations.map((o) => o.type)).toEqual(['audit.emit', 'basket_hash_binding']);
    const over = withBasket();
    over.request.amount = { minor: 12000, currency: 'EUR' };
    expect(run(over).decision).toBe('require_approval');
    expect(run(over).obligations.map((o) => o.type)).toEqual(['audit.emit', 'basket_hash_binding']);
    const denied = withBasket();
    denied.snapshot.merchant = null;
    expect(run(denied)).toMatchObject({ decision: 'deny', obligations: [{ type: 'audit.emit' }] });
  });

  it('replay still matches a deny recorded by an engine before 1.2.0, which bound the basket', () => {
    const denied = withBasket();
    denied.snapshot.merchant = null;
    const today = run(denied);
    const hash = allowedHash(withBasket());
    const legacy = {
      ...today,
      obligations: [{ type: 'audit.emit' }, { type: 'basket_hash_binding', basket_hash: hash }],
    };
    const { request, snapshot, now } = denied;
    expect(replayDecision(request, snapshot, now, legacy, 'aar-decide/1.1.0').matches).toBe(true);
    expect(replayDecision(request, snapshot, now, legacy, 'aar-decide/1.0.0').matches).toBe(true);
    // from 1.2.0 on, a recorded deny that binds a basket is not what decide answers
    expect(replayDecision(request, snapshot, now, legacy, 'aar-decide/1.2.0').matches).toBe(false);
    expect(replayDecision(request, snapshot, now, legacy).matches).toBe(false);
    expect(replayDecision(request, snapshot, now, today, 'aar-decide/1.2.0').matches).toBe(true);
    // an old allow is compared as recorded
    const allowed = withBasket();
    const allowResult = run(allowed);
    const stripped = { ...allowResult, obligations: [{ type: 'audit.emit' }] };
    expect(replayDecision(allowed.request, allowed.snapshot, allowed.now, stripped, 'aar-decide/1.1.0').matches).toBe(
      false,
    );
  });
});

function allowedHash(input: DecisionInput): string {
  const binding = run(input).obligations.find((o) => o.type === 'basket_hash_binding');
  if (!binding || binding.type !== 'basket_hash_binding') throw new Error('no binding');
  return binding.basket_hash as string;
}
