/**
 * Checks every stored record of the audit-relevant tables against the digest its audit entry commits to
 * (CONTRACT section 8), so an edit made with the database's guards dropped is found and named: the entry index, the
 * table and the record. Each table is read in pages joined to its entries by the unique `audit_id` index (no round
 * trip per entry), so memory is O(page) plus two bits per entry (which entries have their records: the chain walk
 * then names an `ns.` entry whose record was deleted). An incremental run (`scope`, audit/verify/verification-marks.ts)
 * reads only the rows after the mark's `seq` of each table, and the revocations of operations from its first entry;
 * evidence packs, bundles, conformance and self-audit reports and attestations are all checked by every run; grants,
 * listings, entities, card tokens and merchants, by an incremental run, when their events are new since the mark
 * (changed-subjects.ts: the marks' signed `record_seqs` stay as they are, so marks of earlier releases resume as
 * before). What no run checks, and why: outside-the-chain.ts (docs/audit.md, "Outside the chain").
 */
import type { Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { checkAccessDecisions } from './check-access-decisions.ts';
import { checkApprovals } from './check-approvals.ts';
import { checkAttestations } from './check-attestations.ts';
import { checkReports } from './check-reports.ts';
import { checkSearchResults } from './check-search-results.ts';
import { checkBacktests } from './check-backtests.ts';
import { checkBundles } from './check-bundles.ts';
import { checkCardTokens } from './check-card-tokens.ts';
import { checkConformanceRuns } from './check-conformance-runs.ts';
import { checkDecisions } from './check-decisions.ts';
import { checkEntities } from './check-entities.ts';
import { checkEvents } from './check-events.ts';
import { checkEvidencePacks } from './check-evidence-packs.ts';
import { checkGrants } from './check-grants.ts';
import { checkListings } from './check-listings.ts';
import { checkMandates } from './check-mandates.ts';
import { checkMemory } from './check-memory.ts';
import { checkAgentMetadata } from './check-agent-metadata.ts';
import { checkPayloadArtefacts } from './check-payload-artefacts.ts';
import { checkMerchants } from './check-merchants.ts';
import { checkPolicyContent } from './check-policy-content.ts';
import { checkRevocations } from './check-revocations.ts';
import { checkRiskStates } from './check-risk-states.ts';
import { checkPurchaseCounters } from './check-purchase-counters.ts';
import { checkSpendCounters } from './check-spend-counters.ts';
import { checkSelfAuditRuns } from './check-self-audit-runs.ts';
import { FULL_SCOPE, RecordFindings, type RecordScope } from './record-findings.ts';

export async function verifyRecords(
  db: Kysely<Database>,
  size: number,
  jwks: Jwks,
  scope: RecordScope = FULL_SCOPE,
  options: { pageSize?: number; decisionsThrough?: number } = {},
): Promise<RecordFindings> {
  const pageSize = options.pageSize ?? 2000;
  const findings = new RecordFindings(size, scope);
  // the decisions after `decisionsThrough`, when given, are checked by the walk worker (verify/parallel-walk.ts)
  const window = { after: scope.after.decisions, through: options.decisionsThrough };
  await checkDecisions(db, findings, pageSize, window);
  await checkEvents(db, findings, pageSize);
  await checkRevocations(db, findings, pageSize * 5);
  await checkApprovals(db, findings, pageSize);
  // risk states: each row is what its subject's latest chained signal set (no `seq` mark: every run checks them all)
  await checkRiskStates(db, findings, pageSize);
  // each day's spend per grant: the sum of the reservations that still count (full runs only)
  await checkSpendCounters(db, findings, pageSize);
  // the purchase counters' buckets: the live purchases of each subject, span and currency (full runs only)
  await checkPurchaseCounters(db, findings);
  await checkEvidencePacks(db, findings, jwks, pageSize);
  // stored documents (no `seq` mark: every run checks them all, like the packs)
  await checkGrants(db, findings, jwks, pageSize);
  await checkBundles(db, findings, jwks, pageSize);
  await checkConformanceRuns(db, findings, jwks, pageSize);
  await checkListings(db, findings, jwks, pageSize);
  await checkSelfAuditRuns(db, findings, jwks, pageSize);
  await checkAttestations(db, findings, jwks, pageSize);
  await checkReports(db, findings, jwks, pageSize);
  await checkSearchResults(db, findings, jwks, pageSize);
  // what decisions read: who may act (entities), with which card (card tokens), where (merchants)
  await checkEntities(db, findings, pageSize);
  await checkCardTokens(db, findings, pageSize);
  await checkMerchants(db, findings, pageSize);
  // what decisions are narrowed by: rule packs, dictionaries, activations (every run, all rows)
  await checkPolicyContent(db, findings, jwks, pageSize);
  // what a pack would have changed: each ended backtest against its completed event (every run, all rows)
  await checkBacktests(db, findings, pageSize);
  // the AuthZEN door's generic-domain decisions: each signed row against its entry (every run, all rows)
  await checkAccessDecisions(db, findings, jwks, pageSize);
  // AP2 mandates, ACP allowances, their issuers and the grants bound to them (every run, all rows)
  await checkMandates(db, findings, pageSize);
  // payload artefacts: each row against its received / verified|rejected / executed events (every run, all rows)
  await checkPayloadArtefacts(db, findings, pageSize);
  // agent metadata attestations: each row against its event and its own agent signature (every run, all rows)
  await checkAgentMetadata(db, findings, pageSize);
  // governed memory: records, contents and tombstones against their signatures and chained events (every run, all rows)
  await checkMemory(db, findings, jwks, pageSize);
  return findings;
}
