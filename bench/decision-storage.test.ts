/**
 * The decision-storage benchmark's plumbing, once through with a few decisions (no assertion on time): every table a
 * decision writes to is counted, the old shape is rebuilt from the same rows and is the larger, and the verifier
 * finds the log valid in both shapes.
 */
import { describe, expect, it } from 'vitest';
import { measureDecisionStorage } from './decision-storage.ts';

describe('decision-storage benchmark', () => {
  it('measures bytes per decision in both shapes and verifies both', async () => {
    const run = await measureDecisionStorage(40);
    expect(run.decisions).toBe(40);
    for (const table of ['decisions', 'events', 'audit_entries', 'audit_nodes', 'request_nonces']) {
      expect(run.perDecision.get(table)?.payload, table).toBeGreaterThan(0);
    }
    const decisions = run.perDecision.get('decisions')!;
    expect(run.legacyDecisions.payload).toBeGreaterThan(decisions.payload * 2);
    // a decision's event envelope (~1 KB of JSON) is no longer stored
    expect(run.eventsGrowth.payload).toBeGreaterThan(500);
    expect(run.verifyMs).toBeGreaterThan(0);
    expect(run.legacyVerifyMs).toBeGreaterThan(0);
  });
});
