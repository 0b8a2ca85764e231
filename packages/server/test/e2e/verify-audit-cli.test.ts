/**
 * `aar verify-audit` in a child process, on each database, against a store a running service wrote: valid with the
 * service's JWKS file and with the data dir's own keys, writing nothing; invalid (exit 1) with a JWKS that does not
 * hold the service's key, whatever the store's `signing_keys` says; invalid naming the entry and the record after one
 * decision row is edited with the guards dropped (what someone with database access but no key does); exit 2 for a
 * usage error or a store that is not there.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateKeyPairSync } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadOnlyStore } from '../../src/cli/read-only-store.ts';
import { testDialects } from '../support/dialects.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { AAR_BIN } from '../support/spawn-server.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const run = promisify(execFile);
const dialects = await testDialects();

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe.each(dialects)('aar verify-audit on %s', (dialect) => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let decisionId: string;
  const dir = mkdtempSync(join(tmpdir(), 'aar-verify-audit-'));
  const jwksFile = join(dir, 'jwks.json');

  /** the store's flags: its data dir (SQLite file and keys), and its URL on PostgreSQL */
  const storeArgs = (): string[] => [
    '--data-dir',
    rt.dataDir,
    ...(dialect === 'postgres' ? ['--database-url', rt.ctx.config.databaseUrl!] : []),
  ];
  const cli = async (args: string[]): Promise<CliResult> => {
    try {
      const { DATABASE_URL: _omit, ...env } = process.env;
      const { stdout, stderr } = await run(process.execPath, [AAR_BIN, 'verify-audit', ...args], { env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const marks = async () =>
    Number(
      (
        await rt.ctx.store.db
          .selectFrom('audit_verifications')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    const allowed = (await world.authorize(world.purchase(30))).body;
    expect(allowed.decision).toBe('allow_with_constraints');
    decisionId = allowed.policy_decision_id;
    await world.must('GET', `/v1/evidence-packs/${allowed.evidence_refs[0]}`); // a stored pack, checked too
    await world.authorize(world.purchase(45)); // require_approval: an approval row
    await world.must('POST', '/v1/audit/checkpoint', {});
    writeFileSync(jwksFile, JSON.stringify((await world.call('GET', '/.well-known/jwks.json')).body));
  });
  afterAll(async () => {
    await rt?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the store read-only, with the JWKS file or the data dir keys, and writes nothing', async () => {
    const withJwks = await cli([...storeArgs(), '--jwks', jwksFile]);
    expect(withJwks.code, withJwks.stdout + withJwks.stderr).toBe(0);
    expect(withJwks.stdout).toMatch(/^valid: all \d+ entries and their records verify$/m);
    const json = await cli([...storeArgs(), '--json']);
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout);
    const keyId = rt.ctx.keys.current().keyId;
    expect(result).toMatchObject({
      valid: true,
      trusted_keys: { key_ids: [keyId] },
      checkpoint: { key_id: keyId, origin: '127.0.0.1:8080/audit' },
    });
    expect(result.checked).toBe(result.size);
    expect(result.uncovered_entries).toBe(result.size - result.checkpoint.size);
    expect((await cli([...storeArgs(), '--origin', '127.0.0.1:8080/audit'])).code).toBe(0);
    expect(await marks()).toBe(0); // read-only: no verification mark, unlike GET /v1/audit/verify
  });

  it('opens the store so that no write can go through it', async () => {
    const store = await openReadOnlyStore({
      dataDir: rt.dataDir,
      databaseUrl: dialect === 'postgres' ? rt.ctx.config.databaseUrl : undefined,
    });
    try {
      expect(
        Number((await sql<{ n: number }>`select count(*) as n from audit_entries`.execute(store.db)).rows[0]!.n),
      ).toBeGreaterThan(0);
      await expect(
        sql`insert into store_meta (key, value, created_at) values ('probe', 'x', '2026-01-01T00:00:00Z')`.execute(
          store.db,
        ),
      ).rejects.toThrow(/read.?only/i);
    } finally {
      await store.close();
    }
  });

  it('trusts only the keys the auditor gives it, never the store', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const other = join(dir, 'other-jwks.json');
    writeFileSync(other, JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'ns:key:other' }] }));
    const res = await cli([...storeArgs(), '--jwks', other, '--json']);
    expect(res.code).toBe(1);
    // the stored evidence pack is the first thing signed that no trusted key verifies
    expect(JSON.parse(res.stdout)).toMatchObject({ valid: false, failure: 'record_signature_invalid' });
    const wrongOrigin = await cli([...storeArgs(), '--origin', 'aar.example.com/audit', '--json']);
    expect(wrongOrigin.code).toBe(1);
    expect(JSON.parse(wrongOrigin.stdout)).toMatchObject({ failure: 'checkpoint_origin_mismatch' });
  });

  it('finds a non-empty log without a signed checkpoint invalid: nothing signed ties it to the service', async () => {
    const fresh = await startTestRuntime({ dialect });
    try {
      const app = await buildPurchaseWorld(await fresh.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
      await app.must('POST', '/v1/entities', { type: 'person', id: 'bob', display_name: 'Bob' });
      const args = ['--data-dir', fresh.dataDir, '--json'];
      if (dialect === 'postgres') args.push('--database-url', fresh.ctx.config.databaseUrl!);
      const res = await cli(args);
      expect(res.code, res.stderr).toBe(1);
      expect(JSON.parse(res.stdout)).toMatchObject({ valid: false, failure: 'checkpoint_missing', checkpoint: null });
    } finally {
      await fresh.close();
    }
  });

  it('exits 2 on a usage error or a store that is not there', async () => {
    const unknownFlag = await cli([...storeArgs(), '--no-such-flag']);
    expect(unknownFlag.code).toBe(2);
    const missing = await cli(['--data-dir', join(dir, 'nothing-here'), '--jwks', jwksFile]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no store at|cannot/);
    const noJwks = await cli([...storeArgs(), '--jwks', join(dir, 'absent.json')]);
    expect(noJwks.code).toBe(2);
  });

  it('fails with exit 1 naming the entry and the record when a decision row was edited', async () => {
    const db = rt.ctx.store.db;
    const entry = await db
      .selectFrom('decisions')
      .innerJoin('audit_entries', 'audit_entries.audit_id', 'decisions.audit_ref')
      .select(['audit_entries.idx', 'audit_entries.audit_id'])
      .where('decisions.policy_decision_id', '=', decisionId)
      .executeTakeFirstOrThrow();
    // database access without the key: the guards out of the way, then the edit
    if (dialect === 'postgres') {
      await db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await sql`update decisions set decision = 'deny' where policy_decision_id = ${decisionId}`.execute(trx);
      });
    } else {
      const triggers = (
        await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'trigger' and tbl_name = 'decisions'`.execute(db)
      ).rows;
      for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
      await sql`update decisions set decision = 'deny' where policy_decision_id = ${decisionId}`.execute(db);
    }
    const text = await cli([...storeArgs(), '--jwks', jwksFile]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`INVALID: record_mismatch at entry ${entry.idx} (${entry.audit_id})`);
    expect(text.stdout).toContain(`record decisions ${decisionId}`);
    const json = JSON.parse((await cli([...storeArgs(), '--jwks', jwksFile, '--json'])).stdout);
    expect(json).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      first_invalid_index: Number(entry.idx),
      first_invalid_audit_id: entry.audit_id,
      record: { table: 'decisions', id: decisionId },
    });
    // the server's own check agrees
    const served = await world.call('GET', '/v1/audit/verify');
    expect(served.body).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      first_invalid_index: json.first_invalid_index,
    });
  });
});
