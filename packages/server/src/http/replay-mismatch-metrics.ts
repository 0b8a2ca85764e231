/**
 * `aar_replay_mismatches_total{engine_version, replay_engine_version}`: the `ns.decision.replay_mismatch` events this
 * process wrote (services/evidence/verify-evidence-pack-on-server.ts), by the engine that decided and the one that
 * replayed. Per process and reset by a restart, like every Prometheus counter; the events themselves are durable and
 * cluster-wide (docs/operations.md: alerting). Labels come only from packs this service signed, so they are bounded
 * by the engine versions it ever ran. Read when scraped: nothing is counted on the metrics path.
 */
import { Counter, type Registry } from 'prom-client';
import type { AppContext } from '../app-context.ts';
import { replayMismatchCounts } from '../services/evidence/verify-evidence-pack-on-server.ts';

export function registerReplayMismatchMetrics(registry: Registry, ctx: AppContext): void {
  new Counter({
    name: 'aar_replay_mismatches_total',
    help: 'Evidence packs this service signed whose replay differs from the recorded decision (ns.decision.replay_mismatch)',
    labelNames: ['engine_version', 'replay_engine_version'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { engine, replay, count } of replayMismatchCounts(ctx)) {
        this.inc({ engine_version: engine, replay_engine_version: replay }, count);
      }
    },
  });
}
