/**
 * Scheduled checkpoints and the check at start (CONTRACT section 8, issue 8 point 4):
 * - a tick signs a checkpoint when entries arrived since the last one, announces it with
 *   `ns.audit.checkpoint_signed` `{ origin, size, root_hash }`, and signs nothing when only its own announcement
 *   arrived since (an idle log stays idle); the timer does the same on a short interval;
 * - `aar serve` refuses to start on a store whose tip no longer extends its last checkpoint (a rolled-back log),
 *   and starts with `--start-unverified` (or AAR_START_UNVERIFIED=true), saying so loudly.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompactRange, encodeBase64, decodeBase64 } from '@aar/core';
import {
  signScheduledCheckpoint,
  startCheckpointWorker,
  CHECKPOINT_SIGNED,
} from '../../src/workers/checkpoint-worker.ts';
import { AAR_BIN, spawnServer } from '../support/spawn-server.ts';
import { ADMIN_TOKEN, auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

describe('scheduled checkpoints', () => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await startTestRuntime();
  });
  afterEach(async () => rt?.close());

  const createEntity = async (id: string) =>
    expect(
      (
        await rt.app.inject({
          method: 'POST',
          url: '/v1/entities',
          headers: { ...auth(), 'content-type': 'application/json' },
          payload: { type: 'person', id, display_name: id },
        })
      ).statusCode,
    ).toBe(201);
  const checkpointCount = async () =>
    Number(
      (
        await rt.ctx.store.db
          .selectFrom('audit_checkpoints')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('signs when entries arrived, and nothing when only its own announcement did', async () => {
    // the bootstrap token's registration is the log's first entry: one tick covers it, the next has nothing new
    expect(await signScheduledCheckpoint(rt.ctx)).toMatchObject({ size: 1 });
    expect(await signScheduledCheckpoint(rt.ctx)).toBeNull();
    await createEntity('a');
    await createEntity('b');
    const size = (await rt.ctx.store.db.selectFrom('audit_state').select('size').executeTakeFirstOrThrow()).size;
    const first = await signScheduledCheckpoint(rt.ctx);
    expect(first).toMatchObject({ size: Number(size), origin: '127.0.0.1:8080/audit' });
    const events = await rt.ctx.store.db
      .selectFrom('events')
      .select('envelope')
      .where('event_type', '=', CHECKPOINT_SIGNED)
      .execute();
    expect(events.map((e) => JSON.parse(e.envelope)).slice(-1)).toEqual([
      expect.objectContaining({
        event_type: CHECKPOINT_SIGNED,
        reason_code: 'checkpoint_signed',
        subject_ref: `ns:checkpoint:${first!.size}`,
        data: { origin: first!.origin, size: first!.size, root_hash: first!.root_hash },
      }),
    ]);

    // idle: only the announcement arrived since
    expect(await signScheduledCheckpoint(rt.ctx)).toBeNull();
    expect(await signScheduledCheckpoint(rt.ctx)).toBeNull();
    expect(await checkpointCount()).toBe(2);

    await createEntity('c');
    const second = await signScheduledCheckpoint(rt.ctx);
    // covers the announcement of the first and the new entity
    expect(second?.size).toBe(first!.size + 2);
    expect(await checkpointCount()).toBe(3);
    const verify = (await rt.app.inject({ method: 'GET', url: '/v1/audit/verify', headers: auth() })).json();
    expect(verify).toMatchObject({ valid: true, checkpoint: { size: second!.size } });
  });

  it('runs on its interval while entries arrive, and stops', async () => {
    const signed: number[] = [];
    const errors: unknown[] = [];
    const stop = startCheckpointWorker(rt.ctx, {
      intervalMs: 20,
      onSigned: (c) => signed.push(c.size),
      onError: (e) => errors.push(e),
    });
    try {
      await createEntity('a');
      await until(() => signed.length >= 1);
      await createEntity('b');
      await until(() => signed.length >= 2);
      // several idle intervals pass without a new checkpoint
      const count = signed.length;
      await new Promise((r) => setTimeout(r, 200));
      expect(signed.length).toBe(count);
    } finally {
      await stop();
    }
    expect(errors).toEqual([]);
    expect(signed[1]).toBeGreaterThan(signed[0]!);
  });
});

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the check at start', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'aar-start-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const env = () => ({ AAR_DATA_DIR: dataDir, AAR_BOOTSTRAP_TOKEN: ADMIN_TOKEN });

  /** `aar serve` until it exits by itself (refusing to start), bounded at 30 s */
  const serveExpectingExit = (args: string[] = []) =>
    new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [AAR_BIN, 'serve', '--port', '0', ...args], {
        env: { ...process.env, AAR_LOG_LEVEL: 'warn', ...env() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`aar serve did not exit: ${output}`));
      }, 30_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });

  it('refuses a store rolled back behind its checkpoint, and starts with --start-unverified, loudly', async () => {
    const server = await spawnServer(env());
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${server.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    for (const id of ['a', 'b', 'c', 'd']) {
      expect((await call('POST', '/v1/entities', { type: 'person', id, display_name: id })).status).toBe(201);
    }
    const checkpoint = (await (await call('POST', '/v1/audit/checkpoint')).json()) as { size: number };
    expect(await server.stop()).toBe(0);

    // the attacker: drop the guards, cut the log back to 2 entries, and make the tip consistent with what is left
    rollBack(join(dataDir, 'aar.sqlite'), 2);
    expect(checkpoint.size).toBeGreaterThan(2);

    const refused = await serveExpectingExit();
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/refusing to start: the audit chain does not match its last checkpoint/);
    expect(refused.output).toMatch(/smaller than its checkpoint/);

    const anyway = await spawnServer({ ...env(), AAR_LOG_LEVEL: 'info' }, ['--start-unverified']);
    try {
      expect(anyway.output()).toMatch(/STARTING UNVERIFIED/);
      expect((await fetch(`${anyway.base}/healthz`)).status).toBe(200);
    } finally {
      await anyway.stop();
    }
    const byEnv = await spawnServer({ ...env(), AAR_START_UNVERIFIED: 'true' });
    try {
      expect(byEnv.output()).toMatch(/STARTING UNVERIFIED/);
    } finally {
      await byEnv.stop();
    }
  });
});

/** Cuts the log back to `keep` entries, as someone with the database file would, guards dropped. */
function rollBack(file: string, keep: number): void {
  const db = new SQLite(file);
  try {
    const triggers = db.prepare(`select name, sql from sqlite_master where type = 'trigger'`).all() as Array<{
      name: string;
      sql: string;
    }>;
    for (const t of triggers) db.exec(`drop trigger ${t.name}`);
    const leaves = db.prepare('select leaf_hash from audit_entries where idx < ? order by idx').all(keep) as Array<{
      leaf_hash: string;
    }>;
    const range = new CompactRange();
    for (const l of leaves) range.append(decodeBase64(l.leaf_hash));
    db.prepare('delete from audit_entries where idx >= ?').run(keep);
    db.prepare('update audit_state set size = ?, last_leaf_hash = ?, frontier = ? where id = 1').run(
      keep,
      leaves[leaves.length - 1]!.leaf_hash,
      JSON.stringify(range.toJSON()),
    );
    for (const t of triggers) db.exec(t.sql);
    expect(encodeBase64(range.root()).length).toBeGreaterThan(0);
  } finally {
    db.close();
  }
}
