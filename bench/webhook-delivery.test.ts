/**
 * The webhook benchmark end to end at a small size: every profile against every receiver (in this process, in its
 * own, and in its own with the cores kept awake), each worker row beside its own plain baseline, every event
 * delivered (the run throws otherwise), and the commit-to-first-attempt latency measured. Times are not asserted.
 */
import { describe, expect, it } from 'vitest';
import { runWebhookDelivery } from './webhook-delivery.ts';

describe('webhook-delivery bench', () => {
  it('measures every profile against every receiver, each beside its plain POSTs', async () => {
    const report = await runWebhookDelivery(40, 5, 10);
    const groups = new Map<string, string[]>();
    for (const m of report.measurements) groups.set(m.group, [...(groups.get(m.group) ?? []), m.name]);
    for (const profile of ['shared_secret', 'asymmetric', 'cose']) {
      for (const suffix of ['', ', receiver in its own process', ', receiver in its own process, cores kept awake']) {
        const names = groups.get(`deliver 40 events, ${profile}${suffix}`);
        expect(names).toEqual([
          "plain POST (unsigned, same bodies, the worker's exchange; runs before and after)",
          `worker, ${profile}`,
          "for reference: plain POST through undici's request() (the baseline before)",
        ]);
      }
    }
    const baselines = report.measurements.filter((m) => m.baseline);
    expect(baselines).toHaveLength(9);
    for (const m of report.measurements) {
      if (m.group.startsWith('deliver')) expect(m.opsPerSecond).toBeGreaterThan(0);
    }
    const latency = report.measurements.find((m) => m.group === 'commit to first attempt (asymmetric)');
    expect(latency?.samples).toBe(5);
    expect(report.notes[0]).toMatch(/got \d+ % and \d+ %; cose \d+ % with the receiver in this process/);
    expect(report.notes[0]).toMatch(/cose \d+ % with it in its own process and every core kept awake/);
  }, 120_000);
});
