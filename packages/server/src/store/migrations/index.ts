import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { Dialect } from '../dialect.ts';
import * as foundation from './0001-foundation.ts';
import * as authorize from './0002-authorize.ts';
import * as audit from './0003-audit.ts';
import * as evidence from './0004-evidence.ts';
import * as delegation from './0005-delegation.ts';
import * as eventOperations from './0006-event-operations.ts';
import * as writeOnceAndOrigin from './0007-write-once-and-origin.ts';
import * as webhooks from './0008-webhooks.ts';
import * as authorizeFactsVersion from './0009-authorize-facts-version.ts';
import * as decisionRecords from './0010-decision-records.ts';
import * as bundles from './0011-bundles.ts';
import * as selfAudit from './0012-self-audit.ts';
import * as conformanceRuns from './0013-conformance-runs.ts';
import * as connectorsAndListings from './0014-connectors-and-listings.ts';
import * as conformanceArtifacts from './0015-conformance-artifacts.ts';
import * as chainedStateIndexes from './0016-chained-state-indexes.ts';
import * as policyContent from './0017-policy-content.ts';
import * as decisionFacts from './0018-decision-facts.ts';
import * as purchaseCounterBuckets from './0019-purchase-counter-buckets.ts';
import * as pepRole from './0020-pep-role.ts';
import * as accessDecisions from './0021-access-decisions.ts';
import * as policySetTexts from './0022-policy-set-texts.ts';
import * as mandates from './0023-mandates.ts';
import * as tokenScopes from './0024-token-scopes.ts';
import * as payloadArtefacts from './0025-payload-artefacts.ts';
import * as memoryRecords from './0026-memory-records.ts';
import * as searchResults from './0027-search-results.ts';
import * as reports from './0028-reports.ts';
import * as agentMetadata from './0029-agent-metadata.ts';
import * as graphIndexes from './0030-graph-indexes.ts';

interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/**
 * The one migration set, in name order (Kysely applies them sorted by name and refuses a store that ran a later one
 * first). Names never change once released; add new files at the end.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, DialectMigration]> = [
  ['0001-foundation', foundation],
  ['0002-authorize', authorize],
  ['0003-audit', audit],
  ['0004-evidence', evidence],
  ['0005-delegation', delegation],
  ['0006-event-operations', eventOperations],
  ['0007-write-once-and-origin', writeOnceAndOrigin],
  ['0008-webhooks', webhooks],
  ['0009-authorize-facts-version', authorizeFactsVersion],
  ['0010-decision-records', decisionRecords],
  ['0011-bundles', bundles],
  ['0012-self-audit', selfAudit],
  ['0013-conformance-runs', conformanceRuns],
  ['0014-connectors-and-listings', connectorsAndListings],
  ['0015-conformance-artifacts', conformanceArtifacts],
  ['0016-chained-state-indexes', chainedStateIndexes],
  ['0017-policy-content', policyContent],
  ['0018-decision-facts', decisionFacts],
  ['0019-purchase-counter-buckets', purchaseCounterBuckets],
  ['0020-pep-role', pepRole],
  ['0021-access-decisions', accessDecisions],
  ['0022-policy-set-texts', policySetTexts],
  ['0023-mandates', mandates],
  ['0024-token-scopes', tokenScopes],
  ['0025-payload-artefacts', payloadArtefacts],
  ['0026-memory-records', memoryRecords],
  ['0027-search-results', searchResults],
  ['0028-reports', reports],
  ['0029-agent-metadata', agentMetadata],
  ['0030-graph-indexes', graphIndexes],
];

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of MIGRATIONS) out[name] = { up: (db) => m.up(db, dialect) };
      return out;
    },
  };
}
