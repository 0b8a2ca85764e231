/**
 * Fills the log fast (seed-log.ts: the appender's rows, written in bulk), then times `GET /v1/audit/verify` over all
 * of it, full and incremental, beside two floors measured in the same run: reading every row the walk reads, and
 * SHA-256 over every entry's bytes. Also samples the heap and RSS during the same work, to show the verifier streams.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../packages/server/src/app-context.ts';
import { verifyAuditLog } from '../../packages/server/src/audit/verify-audit-log.ts';
import { seedLog } from './seed-log.ts';

export interface FillRun {
  entries: number;
  ms: number;
}

export interface VerifyRun {
  ms: number;
  /** user + system CPU time of this process during the call */
  cpuMs: number;
  body: { valid: boolean; size: number; checked: number; from: number; failure?: string };
}

export interface MemoryRun {
  ms: number;
  heapBefore: number;
  /** highest heapUsed seen after any page, bytes */
  peakHeap: number;
  rssBefore: number;
  /** highest RSS seen after any page, bytes */
  peakRss: number;
}

export interface FloorRun {
  ms: number;
  cpuMs: number;
  rows: number;
  bytes: number;
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** `entries` external entries after the current tip, then a signed checkpoint. */
export async function fillLog(ctx: AppContext, entries: number): Promise<FillRun> {
  const seeded = await seedLog(ctx, entries);
  return { entries: seeded.entries, ms: seeded.ms };
}

/** The route, timed as a client sees it (in-process inject: no socket). */
export async function timeVerifyRoute(app: FastifyInstance, token: string, query = ''): Promise<VerifyRun> {
  const started = performance.now();
  const cpu = cpuNow();
  const res = await app.inject({
    method: 'GET',
    url: `/v1/audit/verify${query}`,
    headers: { authorization: `Bearer ${token}` },
  });
  const ms = performance.now() - started;
  const cpuMs = cpuNow() - cpu;
  if (res.statusCode !== 200) throw new Error(`/v1/audit/verify answered ${res.statusCode}: ${res.body}`);
  return { ms, cpuMs, body: res.json() };
}

/** The floor of any verifier that reads the log from this store: every entry row the walk reads, nothing computed. */
export async function readEveryRow(ctx: AppContext, pageSize = 10_000): Promise<FloorRun> {
  const started = performance.now();
  const cpu = cpuNow();
  let rows = 0;
  let bytes = 0;
  for (let from = 0; ; from += pageSize) {
    const page = await ctx.store.db
      .selectFrom('audit_entries')
      .select(['idx', 'audit_id', 'entry', 'leaf_hash'])
      .where('idx', '>=', from)
      .orderBy('idx')
      .limit(pageSize)
      .execute();
    if (page.length === 0) break;
    rows += page.length;
    for (const row of page) bytes += row.entry.length;
  }
  return { ms: performance.now() - started, cpuMs: cpuNow() - cpu, rows, bytes };
}

/** SHA-256 (node:crypto) over every entry's bytes, read first: the hashing floor of the leaves alone. */
export async function hashEveryEntry(ctx: AppContext, pageSize = 10_000): Promise<FloorRun> {
  const texts: string[] = [];
  let bytes = 0;
  for (let from = 0; ; from += pageSize) {
    const page = await ctx.store.db
      .selectFrom('audit_entries')
      .select('entry')
      .where('idx', '>=', from)
      .orderBy('idx')
      .limit(pageSize)
      .execute();
    if (page.length === 0) break;
    for (const row of page) {
      texts.push(row.entry);
      bytes += row.entry.length;
    }
  }
  const started = performance.now();
  const cpu = cpuNow();
  for (const text of texts) createHash('sha256').update(text, 'utf8').digest();
  return { ms: performance.now() - started, cpuMs: cpuNow() - cpu, rows: texts.length, bytes };
}

/**
 * The route's work again, sampling heap and RSS after every page: the loop never yields to timers (the SQLite
 * driver is synchronous), so a setInterval sampler would see nothing.
 */
export async function sampleVerifyMemory(ctx: AppContext): Promise<MemoryRun> {
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  const started = performance.now();
  await verifyAuditLog(ctx, {
    storeMark: false,
    onPage: () => {
      const now = process.memoryUsage();
      peakHeap = Math.max(peakHeap, now.heapUsed);
      peakRss = Math.max(peakRss, now.rss);
    },
  });
  return { ms: performance.now() - started, heapBefore: before.heapUsed, peakHeap, rssBefore: before.rss, peakRss };
}

export interface CappedRun {
  heapMiB: number;
  valid: boolean;
  size: number;
  peakHeap: number;
  peakRss: number;
  ms: number;
}

/**
 * The whole log verified in a child process whose V8 heap is capped at `heapMiB` (verify-capped.ts): it completes
 * only if the verifier streams. The child opens the same store (SQLite WAL: a second process reads beside this one).
 */
export function verifyInCappedProcess(dataDir: string, heapMiB: number): Promise<CappedRun> {
  const script = fileURLToPath(new URL('./verify-capped.ts', import.meta.url));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [`--max-old-space-size=${heapMiB}`, '--conditions=aar-source', '--import', 'tsx', script, dataDir],
      { maxBuffer: 1024 * 1024, env: { ...process.env, AAR_LOG_LEVEL: 'warn' } },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`capped verify (${heapMiB} MiB heap) failed: ${stderr.slice(-2000) || error.message}`));
          return;
        }
        const line = stdout.trim().split('\n').at(-1) ?? '';
        resolve({
          heapMiB,
          ms: performance.now() - started,
          ...(JSON.parse(line) as Omit<CappedRun, 'heapMiB' | 'ms'>),
        });
      },
    );
  });
}
