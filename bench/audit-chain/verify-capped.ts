/**
 * Run as its own process by `verifyInCappedProcess` (fill-and-verify.ts), with a capped V8 heap: opens the service on
 * the benchmark's data dir, verifies the whole log and prints `{ valid, size, peakHeap, peakRss }` as JSON. If the
 * verifier kept the log (or anything growing with it) in memory, this process would die of heap exhaustion instead.
 */
import { loadConfig } from '../../packages/server/src/config.ts';
import { openRuntime } from '../../packages/server/src/runtime.ts';
import { verifyAuditLog } from '../../packages/server/src/audit/verify-audit-log.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: verify-capped.ts <data dir>');
const ctx = await openRuntime(loadConfig({ AAR_DATA_DIR: dataDir, AAR_BOOTSTRAP_TOKEN: 'bench-audit-admin-token' }));
let peakHeap = 0;
let peakRss = 0;
const sample = () => {
  const now = process.memoryUsage();
  peakHeap = Math.max(peakHeap, now.heapUsed);
  peakRss = Math.max(peakRss, now.rss);
};
try {
  const result = await verifyAuditLog(ctx, { storeMark: false, onPage: sample });
  sample();
  console.log(JSON.stringify({ valid: result.valid, size: result.size, peakHeap, peakRss }));
} finally {
  await ctx.store.close();
}
