/**
 * Concurrent appends cannot fork the chain (SECURITY.md "Audit and evidence"): two instances sharing one PostgreSQL
 * append at the same time, each through its own write queue; the tip row lock orders their batches, so the result
 * is one chain and one tree that verify, with every entry once. PostgreSQL only: it is the multi-instance store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signCheckpoint } from '../../src/audit/checkpoints.ts';
import { verifyAuditLog } from '../../src/audit/verify-audit-log.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { auditOf } from '../../src/store/write-queue.ts';
import type { AppContext } from '../../src/app-context.ts';
import { testDialects } from '../support/dialects.ts';
import { freshPgSchema } from '../support/pg-schema.ts';

const postgres = (await testDialects()).includes('postgres');

describe.runIf(postgres)('two instances appending to one PostgreSQL', () => {
  it('make one chain, never a fork', { timeout: 60_000 }, async () => {
    const schema = await freshPgSchema();
    const dirs = [mkdtempSync(join(tmpdir(), 'aar-fork-a-')), mkdtempSync(join(tmpdir(), 'aar-fork-b-'))];
    const instances: AppContext[] = [];
    try {
      for (const dir of dirs) {
        instances.push(await openRuntime(loadConfig({ AAR_DATA_DIR: dir }, { databaseUrl: schema.url })));
      }
      const append = (ctx: AppContext, i: number) =>
        ctx.writer.run(async (trx) =>
          auditOf(trx).append({
            kind: 'test.fork',
            subject_ref: `s${i}`,
            record: { i },
            occurred_at: new Date().toISOString(),
          }),
        );
      const results = await Promise.all(Array.from({ length: 400 }, (_, i) => append(instances[i % 2]!, i)));
      expect(new Set(results.map((r) => r.index)).size).toBe(400);
      await signCheckpoint(instances[0]!);
      // the other instance sees the same tree: its checkpoint is the same one, or a consistent successor
      expect((await signCheckpoint(instances[1]!)).size).toBe(400);
      for (const ctx of instances) {
        expect(await verifyAuditLog(ctx)).toMatchObject({ valid: true, size: 400, checked: 400 });
      }
    } finally {
      for (const ctx of instances) await ctx.store.close();
      await schema.drop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});
