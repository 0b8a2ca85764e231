/**
 * The second property of issue 26: one changed byte anywhere is found. On each database, a store with at least one
 * row in every table (built through the real API), then, for every table and every column that holds data, one byte
 * of one row is changed with the write-once guards out of the way (an attacker with SQL access, not the key), and
 * `GET /v1/audit/verify` must answer `valid: false`; the row is then put back. The tables and columns documented as
 * outside the chain (audit/record-checks/outside-the-chain.ts, mirrored by docs/audit.md "Outside the chain") are
 * allowed to go unnoticed, and only they: a table or column outside that list that verify does not notice fails the
 * test, and so does an entry of the list that verify now notices (a column, or every column of a table listed whole):
 * the list must not hide what is covered.
 * Exhaustive (every column of one row per table) and bounded: a few hundred small verifications per database.
 */
import { readFileSync } from 'node:fs';
import { computeBasketHash, signDocument } from '@aar/core';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTSIDE_THE_CHAIN, isOutsideTheChain } from '../../src/audit/record-checks/outside-the-chain.ts';
import type { Database, Dialect } from '../../src/store/index.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { ap2Keys, openPaymentChain, paymentConstraints } from '../mandates/support/ap2-chain.ts';

const dialects = await testDialects();

/** Every table of the store, with its columns and the columns that identify a row. */
async function tablesOf(
  db: Kysely<Database>,
  dialect: Dialect,
): Promise<Array<{ table: string; columns: string[]; key: string[] }>> {
  if (dialect === 'sqlite') {
    const tables = (
      await sql<{ name: string }>`select name from sqlite_master where type = 'table'
        and name not like 'sqlite_%' order by name`.execute(db)
    ).rows.map((r) => r.name);
    const out = [];
    for (const table of tables) {
      const info = (
        await sql<{ name: string; pk: number }>`select name, pk from pragma_table_info(${table})`.execute(db)
      ).rows;
      const pk = info.filter((c) => c.pk > 0).map((c) => c.name);
      out.push({ table, columns: info.map((c) => c.name), key: pk.length > 0 ? pk : ['rowid'] });
    }
    return out;
  }
  const tables = (
    await sql<{ table_name: string }>`select table_name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db)
  ).rows.map((r) => r.table_name);
  const out = [];
  for (const table of tables) {
    const columns = (
      await sql<{ column_name: string }>`select column_name from information_schema.columns
        where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db)
    ).rows.map((r) => r.column_name);
    // the primary key (a background write may move the row: its ctid is no name for it), else the ctid
    const pk = (
      await sql<{ column_name: string }>`select k.column_name from information_schema.table_constraints c
        join information_schema.key_column_usage k
          on k.constraint_name = c.constraint_name and k.table_schema = c.table_schema and k.table_name = c.table_name
        where c.table_schema = current_schema() and c.table_name = ${table} and c.constraint_type = 'PRIMARY KEY'
        order by k.ordinal_position`.execute(db)
    ).rows.map((r) => r.column_name);
    out.push({ table, columns, key: pk.length > 0 ? pk : ['ctid'] });
  }
  return out;
}

/** One byte changed: a digit or letter moved on by one, another ASCII character replaced, a blob's bit flipped. */
function flipped(value: unknown, attempt: number): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return value + 1 + attempt;
  if (typeof value === 'bigint') return value + BigInt(1 + attempt);
  if (typeof value === 'boolean') return attempt === 0 ? !value : undefined;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    const copy = Buffer.from(value);
    if (copy.length === 0) return undefined;
    copy[(copy.length >> 1) + attempt < copy.length ? (copy.length >> 1) + attempt : 0]! ^= 1;
    return copy;
  }
  const text = String(value);
  if (text.length === 0) return attempt === 0 ? 'x' : undefined;
  // from the middle, the (attempt)th alphanumeric ASCII character
  const order = Array.from({ length: text.length }, (_, i) => i).sort(
    (a, b) => Math.abs(a - text.length / 2) - Math.abs(b - text.length / 2),
  );
  const candidates = order.filter((i) => /[0-9A-Za-z]/.test(text[i]!));
  const at = candidates[attempt] ?? (attempt === 0 ? order[0] : undefined);
  if (at === undefined) return undefined;
  const c = text[at]!;
  const next = /[0-9]/.test(c)
    ? String((Number(c) + 1) % 10)
    : /[a-z]/.test(c)
      ? c === 'z'
        ? 'a'
        : String.fromCharCode(c.charCodeAt(0) + 1)
      : /[A-Z]/.test(c)
        ? c === 'Z'
          ? 'A'
          : String.fromCharCode(c.charCodeAt(0) + 1)
        : 'x';
  return `${text.slice(0, at)}${next}${text.slice(at + 1)}`;
}

describe.each(dialects)('one changed byte in any table is found on %s', (dialect) => {
  let rt: TestRuntime;
  let w: DelegationWorld;
  const db = (): Kysely<Database> => rt.ctx.store.db;
  const verify = async () => (await w.call('GET', '/v1/audit/verify')).body;

  beforeAll(async () => {
    rt = await startTestRuntime({
      dialect,
      config: { webhookAllowInsecure: true },
      optIn: ['search', 'memory', 'reports'],
    });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildDelegationWorld(base, ADMIN_TOKEN);
    await populate(w, base);
    expect(await verify()).toMatchObject({ valid: true });
  }, 180_000);
  afterAll(async () => rt?.close());

  it('every column of every table inside the chain', async () => {
    const tables = await tablesOf(db(), dialect);
    const empty: string[] = [];
    const unnoticed: string[] = [];
    const noticedButListed: string[] = [];
    for (const { table, columns, key } of tables) {
      const wholeTableOutside = isOutsideTheChain(table);
      const keyList = sql.join(key.map((k) => (k === 'ctid' || k === 'rowid' ? sql.raw(k) : sql.ref(k))));
      const row = (
        await sql<Record<string, unknown>>`select ${keyList}, * from ${sql.table(table)} limit 1`.execute(db())
      ).rows[0];
      if (!row) {
        if (!wholeTableOutside) empty.push(table);
        continue;
      }
      let flippable = 0;
      let noticed = 0;
      for (const column of columns) {
        const outside = isOutsideTheChain(table, column);
        const found = await flipAndVerify(table, key, row, column);
        if (found === 'no data' || found === 'refused') continue;
        flippable += 1;
        if (found) noticed += 1;
        if (wholeTableOutside) continue;
        if (!found && !outside) unnoticed.push(`${table}.${column}`);
        if (found && outside) noticedButListed.push(`${table}.${column}`);
      }
      // a table listed whole whose every column is now noticed is covered: the list must say so
      if (wholeTableOutside && flippable > 0 && noticed === flippable) noticedButListed.push(table);
    }
    expect({ empty, unnoticed, noticedButListed }).toEqual({ empty: [], unnoticed: [], noticedButListed: [] });
    expect(await verify()).toMatchObject({ valid: true });
  }, 300_000);

  /** true: verify found the change; false: it did not; 'no data' (null); 'refused' (a constraint, not a trigger). */
  async function flipAndVerify(
    table: string,
    key: string[],
    row: Record<string, unknown>,
    column: string,
  ): Promise<boolean | 'no data' | 'refused'> {
    const original = row[column];
    for (let attempt = 0; attempt < 3; attempt++) {
      const changed = flipped(original, attempt);
      if (changed === undefined) return attempt === 0 ? 'no data' : 'refused';
      const where = (values: Record<string, unknown>) =>
        sql.join(
          key.map((k) =>
            k === 'ctid' || k === 'rowid' ? sql`${sql.raw(k)} = ${values[k]}` : sql`${sql.ref(k)} = ${values[k]}`,
          ),
          sql` and `,
        );
      let located: Record<string, unknown> = row;
      const returning = sql.join(key.map((k) => (k === 'ctid' || k === 'rowid' ? sql.raw(k) : sql.ref(k))));
      try {
        await edit(async (trx) => {
          const res = await sql<Record<string, unknown>>`update ${sql.table(table)} set ${sql.ref(column)} = ${changed}
            where ${where(row)} returning ${returning}`.execute(trx);
          if (res.rows.length !== 1) throw new Error(`${table}: ${res.rows.length} rows updated`);
          located = { ...row, ...res.rows[0] };
        });
      } catch (error) {
        // a constraint (CHECK, UNIQUE, FOREIGN KEY on SQLite) or an identity column (PostgreSQL) refuses it: no edit
        if (/constraint|violates|invalid input|out of range|only be updated to DEFAULT/i.test(String(error))) continue;
        throw error;
      }
      const answer = await verify();
      await edit(async (trx) => {
        const res = await sql<
          Record<string, unknown>
        >`update ${sql.table(table)} set ${sql.ref(column)} = ${original as never}
          where ${where(located)} returning ${returning}`.execute(trx);
        if (res.rows.length !== 1) throw new Error(`${table}: ${res.rows.length} rows restored`);
        Object.assign(row, res.rows[0]); // PostgreSQL: the row has a new ctid
      });
      return answer.valid === false;
    }
    return 'refused';
  }

  async function edit(change: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
    if (dialect === 'postgres') {
      await db()
        .transaction()
        .execute(async (trx) => {
          await sql`set local session_replication_role = replica`.execute(trx);
          await change(trx);
        });
      return;
    }
    const triggers = (
      await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'trigger'`.execute(db())
    ).rows;
    for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db());
    try {
      await change(db());
    } finally {
      for (const t of triggers) await sql.raw(t.sql).execute(db());
    }
  }
});

describe('the list of what is outside the chain', () => {
  it('is the one docs/audit.md shows, with a reason for each', () => {
    const doc = readFileSync(new URL('../../../../docs/audit.md', import.meta.url), 'utf8');
    const from = doc.indexOf('### Outside the chain');
    const rest = doc.slice(from + 1);
    const section = rest.slice(0, rest.search(/\n#{2,3} /));
    const listed = [...section.matchAll(/^\| `([a-z_]+)` \| ([^|]+) \|/gm)].map((m) => ({
      table: m[1],
      columns: m[2]!.trim() === 'all' ? 'all' : [...m[2]!.matchAll(/`([a-z_]+)`/g)].map((c) => c[1]).join(','),
    }));
    expect(listed).toEqual(
      OUTSIDE_THE_CHAIN.map((e) => ({ table: e.table, columns: e.columns ? e.columns.join(',') : 'all' })),
    );
    for (const e of OUTSIDE_THE_CHAIN) expect(e.reason.length, e.table).toBeGreaterThan(40);
  });
});

/** A store with rows in every table, through the API: every kind of record the service writes. */
async function populate(w: DelegationWorld, base: string): Promise<void> {
  const { must } = w;
  // delegation two levels down (signed statements: delegation_nonces), then every decision and outcome
  const middle = (await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {})).body.grant_id;
  expect(middle).toBeTypeOf('string');
  const leaf = (await w.delegate(middle, 'planner', 'ns:entity:agent:shopper-1', {})).body.grant_id;
  expect(leaf).toBeTypeOf('string');
  const allowed = (await w.authorize('shopper-1', w.purchase('shopper-1', 30))).body;
  expect(allowed.decision).toBe('allow_with_constraints');
  await must(
    'POST',
    '/v1/runtime/outcomes',
    { policy_decision_id: allowed.policy_decision_id, outcome: 'executed' },
    w.runtimeToken,
  );
  // a payload artefact (migration 0025): a signed basket verified against an allowed execute, then executed (the
  // first row, flipped column by column), and a rejected one
  const basket = { items: [{ sku: 'flip', quantity: 1 }] };
  const bound = (await w.authorize('shopper-1', w.purchase('shopper-1', 10, 'grocer-1', { basket }))).body;
  expect(bound.decision).toBe('allow_with_constraints');
  const digest = computeBasketHash(basket).slice('sha-256:'.length);
  const { signature } = await signDocument(
    {
      schema_version: 'ns.payload_artefact_statement.v1',
      kind: 'basket',
      digest,
      policy_decision_id: bound.policy_decision_id,
    },
    w.keys['shopper-1']!.documents,
  );
  const artefact = await must(
    'POST',
    '/v1/payload-artefacts',
    { kind: 'basket', digest, policy_decision_id: bound.policy_decision_id, signature },
    w.runtimeToken,
  );
  await must(
    'POST',
    `/v1/payload-artefacts/${artefact.payload_artefact_id}/execute`,
    { outcome: 'executed' },
    w.runtimeToken,
  );
  await must(
    'POST',
    '/v1/payload-artefacts',
    { kind: 'checkout', digest, policy_decision_id: allowed.policy_decision_id },
    w.runtimeToken,
  );
  // the opt-in capabilities (migrations 0026-0028): shopper-1's memory under its grant, one record erased (its
  // tombstone), a signed search, a report schedule and an on-demand report
  const memoryWriter = (await must('POST', '/v1/tokens', { role: 'runtime', scopes: ['memory.write'] })).token;
  const scoped = (
    await must('POST', '/v1/tokens', {
      role: 'admin',
      scopes: ['memory.read', 'memory.write', 'reports.read', 'reports.write', 'search.read'],
    })
  ).token;
  const writeMemory = async (content: unknown): Promise<{ memory_record_id: string }> => {
    const url = `${base}/v1/memory/records`;
    const text = JSON.stringify({
      agent_entity_id: w.keys['shopper-1']!.id,
      grant_id: leaf,
      classification: 'confidential',
      content,
    });
    const sig = await w.keys['shopper-1']!.requests.sign({ method: 'POST', url, body: text });
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${memoryWriter}`, 'content-type': 'application/json', ...sig },
      body: text,
    });
    const body = (await res.json()) as { memory_record_id: string };
    expect(res.status, JSON.stringify(body)).toBe(201);
    return body;
  };
  await writeMemory({ note: 'delivery after 18:00' });
  const erased = await writeMemory({ note: 'to be erased' });
  await must('DELETE', `/v1/memory/records/${erased.memory_record_id}`, undefined, scoped);
  await must('POST', '/v1/search', { kinds: ['decisions', 'memory_records'], limit: 5 }, scoped);
  await must('POST', '/v1/reports/schedules', { every: 'day', description: 'daily control report' }, scoped);
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  await must(
    'POST',
    '/v1/reports',
    { from: new Date(hour - 3_600_000).toISOString(), to: new Date(hour).toISOString() },
    scoped,
  );
  const asked = (await w.authorize('shopper-1', w.purchase('shopper-1', 90))).body;
  expect(asked.decision).toBe('require_approval');
  await must('POST', `/v1/approvals/${asked.approval!.approval_id}/decision`, { approve: true }, w.aliceToken);
  expect((await w.authorize('shopper-1', w.purchase('shopper-1', 20, 'casino-1'))).body.decision).toBe('deny');
  await must('POST', '/v1/risk-signals', { entity_id: 'ns:entity:agent:sibling', risk_state: 'elevated' });
  // agent metadata (issue 30): shopper-1's attestation signed with its own key (agent_metadata_attestations)
  const attestation = await signDocument(
    {
      schema_version: 'ns.agent_metadata_attestation.v1',
      agent_entity_id: 'ns:entity:agent:shopper-1',
      model: 'gpt-shop-7',
      software_version: 'shopper/2.4.1',
      operator: 'Example Agents GmbH',
      issued_at: new Date().toISOString(),
    },
    w.keys['shopper-1'].documents,
  );
  await must('POST', '/v1/entities/ns:entity:agent:shopper-1/metadata-attestations', attestation, w.runtimeToken);
  // documents: a bundle, a conformance report, a listing, a self-audit report, an attestation
  await must('POST', '/v1/bundles/assemble', { policy_decision_id: allowed.policy_decision_id });
  const report = await must('POST', '/v1/conformance/runs', { profiles: ['ns.audit_chain.v1'] });
  await must('POST', '/v1/listings', {
    kind: 'agent',
    title: 'Byte Flip Agent',
    publisher: { name: 'Flip Ltd', tier: 'community' },
    sectors: ['retail'],
    regimes: ['gdpr'],
    jurisdictions: ['DE'],
    pricing_model: 'free',
  });
  await must('POST', '/v1/self-audit/runs', {});
  await must('POST', '/v1/certification/attestations', { conformance_report_id: report.report_id });
  // a webhook endpoint on loopback, an idempotent POST, a revocation, an erasure
  await must('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', profile: 'shared_secret' });
  const idempotent = await fetch(`${base}/v1/merchants`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      'content-type': 'application/json',
      'idempotency-key': 'byte-flip-1',
    },
    body: JSON.stringify({ id: 'flip-shop', display_name: 'Flip', category: '5411', jurisdiction: 'DE' }),
  });
  expect(idempotent.status).toBe(201);
  // policy content: the shipped packs and dictionaries are seeded at start; an activation of one (shadow: no decision
  // above changes)
  await must('POST', '/v1/rule-activations', {
    pack_id: 'ns:rule_pack:velocity',
    version: '1.0.0',
    target: { deployment: true },
    mode: 'shadow',
  });
  // a decision under it: its record names the policy set's text, stored once (policy_set_texts, record codec 2)
  expect((await w.authorize('shopper-1', w.purchase('shopper-1', 25, 'casino-1'))).body.decision).toBe('deny');
  // a backtest of that pack over the decisions above, waited for until done (a `running` row is no record yet)
  const backtest = (await must('POST', '/v1/rule-packs/velocity/versions/1.0.0/backtests', {
    from: '2000-01-01T00:00:00Z',
    until: '2100-01-01T00:00:00Z',
  })) as { backtest_id: string };
  expect(backtest.backtest_id).toMatch(/^ns:backtest:/);
  for (let i = 0; ; i++) {
    const view = (await w.call('GET', `/v1/backtests/${backtest.backtest_id}`)).body as { state: string };
    if (view.state !== 'running') {
      expect(view.state).toBe('done');
      break;
    }
    expect(i).toBeLessThan(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // an AuthZEN generic-domain decision (access_decisions): a one-rule generic pack, published, activated, asked
  await must('POST', '/v1/rule-packs', {
    schema_version: 'ns.rule_pack.v1',
    pack_id: 'ns:rule_pack:flip_generic',
    version: '1.0.0',
    domain: 'generic',
    title: 'Byte flip: reading is permitted',
    description: 'Permits the action `read`.',
    dictionaries: [],
    reasons: [],
    rules: [
      {
        rule_id: 'read',
        title: 'Reading is permitted',
        description: 'Permits `read`.',
        when: { '===': [{ var: 'request.action.name' }, 'read'] },
        effect: 'permit',
      },
    ],
    tests: [{ name: 'read', context: { request: { action: { name: 'read' } } }, expect: { effect: 'permit' } }],
  });
  await must('POST', '/v1/rule-packs/flip_generic/versions/1.0.0/publish');
  await must('POST', '/v1/rule-activations', {
    pack_id: 'ns:rule_pack:flip_generic',
    version: '1.0.0',
    target: { deployment: true },
    mode: 'enforce',
  });
  const access = await must('POST', '/access/v1/evaluation', {
    subject: { type: 'user', id: 'flip' },
    action: { name: 'read' },
    resource: { type: 'doc', id: 'd-1' },
  });
  expect(access.decision).toBe(true);
  // AP2 mandate and ACP allowance (issue 29): a trusted issuer, a mandate under the root grant (its key-binding
  // nonce: mandate_nonces), an allowance (grants.mandate_id, mandates); both bound grants chained and signed
  const ap2 = await ap2Keys();
  await must('POST', '/v1/mandate-issuers', {
    issuer: 'https://flip.issuer.test',
    format: 'ap2',
    jwks: { keys: [ap2.issuer.publicJwk] },
  });
  const presentation = await openPaymentChain(ap2, {
    issuer: 'https://flip.issuer.test',
    audience: 'http://127.0.0.1:8080',
    nowSeconds: Math.floor(Date.now() / 1000),
    constraints: paymentConstraints(5000, 'EUR', ['merchant_1']),
  });
  await must('POST', '/v1/mandates', {
    format: 'ap2',
    presentation,
    parent_grant_id: w.root.grant_id,
    actor_entity_id: 'ns:entity:agent:helper',
    payees: { merchant_1: 'grocer-1' },
  });
  const allowance = await fetch(`${base}/v1/allowances`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      'content-type': 'application/json',
      'idempotency-key': 'flip-acp-1',
    },
    body: JSON.stringify({
      format: 'acp',
      allowance: {
        reason: 'one_time',
        max_amount: 2000,
        currency: 'eur',
        checkout_session_id: 'csn_flip',
        merchant_id: 'grocer-1',
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
      vaulted_token_id: 'vt_flip',
      parent_grant_id: w.root.grant_id,
      actor_entity_id: 'ns:entity:agent:sibling',
    }),
  });
  expect(allowance.status).toBe(201);
  await must('POST', `/v1/grants/${leaf}/revoke`);
  await must('POST', '/v1/entities', { type: 'person', id: 'eve', display_name: 'Eve' });
  await must('DELETE', '/v1/entities/ns:entity:person:eve');
}
