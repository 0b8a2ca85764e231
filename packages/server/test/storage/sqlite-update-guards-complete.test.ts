/**
 * SQLite's update guards name the columns they compare (`new.c is old.c`), read when the guard is made: a migration
 * that adds a column to a guarded table must make the guard again, or the new column can be rewritten freely (the
 * bug 0015 had for `conformance_runs.origin`). Here, on a store migrated to the latest version, every update guard
 * compares every column of its table but the state columns its definition names. PostgreSQL compares whole rows.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING_GUARDS } from '../../src/store/migrations/0014-connectors-and-listings.ts';
import { ACCESS_DECISIONS_GUARD } from '../../src/store/migrations/0021-access-decisions.ts';
import { POLICY_GUARDS } from '../../src/store/migrations/0017-policy-content.ts';
import { MANDATE_GUARDS } from '../../src/store/migrations/0023-mandates.ts';
import { PAYLOAD_ARTEFACT_GUARDS } from '../../src/store/migrations/0025-payload-artefacts.ts';
import { MEMORY_GUARDS } from '../../src/store/migrations/0026-memory-records.ts';
import { SEARCH_GUARDS } from '../../src/store/migrations/0027-search-results.ts';
import { REPORT_GUARDS } from '../../src/store/migrations/0028-reports.ts';
import { AGENT_METADATA_GUARDS } from '../../src/store/migrations/0029-agent-metadata.ts';
import {
  ATTESTATIONS_GUARD,
  AUDIT_GUARDED,
  AUDIT_VERIFICATIONS_GUARD,
  BUNDLES_GUARD,
  CONFORMANCE_RUNS_GUARD,
  POLICY_SET_TEXTS_GUARD,
  RECORD_GUARDED,
  SELF_AUDIT_RUNS_GUARD,
  type GuardedTable,
} from '../../src/store/migrations/write-once-guards.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const GUARDS: readonly GuardedTable[] = [
  ...AUDIT_GUARDED,
  ...RECORD_GUARDED,
  AUDIT_VERIFICATIONS_GUARD,
  BUNDLES_GUARD,
  SELF_AUDIT_RUNS_GUARD,
  ATTESTATIONS_GUARD,
  CONFORMANCE_RUNS_GUARD,
  ...LISTING_GUARDS,
  ...POLICY_GUARDS,
  ...MANDATE_GUARDS,
  ...PAYLOAD_ARTEFACT_GUARDS,
  ...MEMORY_GUARDS,
  ...SEARCH_GUARDS,
  ...REPORT_GUARDS,
  ...AGENT_METADATA_GUARDS,
  ACCESS_DECISIONS_GUARD,
  POLICY_SET_TEXTS_GUARD,
];

describe('SQLite update guards', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({ dialect: 'sqlite' });
  });
  afterAll(async () => rt?.close());

  it('compare every column of their table but its state columns', async () => {
    const db = rt.ctx.store.db;
    const triggers = (
      await sql<{ tbl_name: string; sql: string }>`select tbl_name, sql from sqlite_master
        where type = 'trigger' and name like '%_guard_update'`.execute(db)
    ).rows;
    expect(triggers.length).toBeGreaterThan(10);
    // a table's columns its guard does not compare, state columns aside (those may appear in its transition rule)
    const uncompared: Record<string, string[]> = {};
    for (const trigger of triggers) {
      const guard = GUARDS.find((g) => g.table === trigger.tbl_name);
      expect(guard, `a guard definition for ${trigger.tbl_name}`).toBeDefined();
      const columns = (await sql<{ name: string }>`select name from pragma_table_info(${trigger.tbl_name})`.execute(db))
        .rows;
      uncompared[trigger.tbl_name] = columns
        .map((c) => c.name)
        .filter((c) => !guard!.stateColumns.includes(c) && !trigger.sql.includes(`new.${c} is old.${c}`));
    }
    expect(Object.fromEntries(Object.entries(uncompared).filter(([, columns]) => columns.length > 0))).toEqual({});
    expect(Object.keys(uncompared)).toContain('conformance_runs');
  });
});
