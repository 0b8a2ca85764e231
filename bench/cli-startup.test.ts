import { describe, expect, it } from 'vitest';
import { runCliStartup } from './cli-startup.ts';

describe('cli-startup benchmark plumbing', () => {
  it('times --version and serve in both modes, each against its baseline', async () => {
    const report = await runCliStartup({ versionRuns: 1, serveRuns: 1 });
    const groups = new Map<string, number>();
    for (const m of report.measurements) {
      expect(m.samples).toBe(1);
      expect(m.meanMs).toBeGreaterThan(0);
      groups.set(m.group, (groups.get(m.group) ?? 0) + (m.baseline ? 1 : 0));
    }
    expect([...groups.keys()]).toEqual(['node -e 0 (floor)', 'aar --version', 'aar serve until /healthz']);
    for (const baselines of groups.values()) expect(baselines).toBe(1);
  }, 120_000);
});
