/**
 * What `GET /v1/audit/verify` does not check, and why: the one list, mirrored by docs/audit.md ("Outside the chain")
 * and held to both by test/storage/audit-byte-flip.test.ts, which changes one byte of every other column of every
 * table and requires verify to find it. An entry is a whole table (`columns` absent) or some of its columns.
 * Each reason says why an edit cannot change a decision or a served fact, or what else detects it; an entry that
 * says "not yet covered" is a known gap, named so that it is neither hidden nor forgotten.
 */
export interface OutsideTheChain {
  table: string;
  /** absent: the whole table */
  columns?: readonly string[];
  reason: string;
}

const SEQ = 'storage order, not data: no record commits to it and nothing served or decided depends on its value';
const CREATED_BY = 'the credential that asked for it, kept for operators: never served, never read by a decision';
const POLICY_TIMES =
  'when the row was written and last moved: shown only; the state, document, digest and origin are checked against ' +
  "the row's chained events (check-policy-content.ts), whose `occurred_at` are the instants that count";

export const OUTSIDE_THE_CHAIN: readonly OutsideTheChain[] = [
  { table: 'access_decisions', columns: ['seq'], reason: SEQ },
  {
    table: 'api_token_usage',
    reason:
      'when each credential was last used: shown to operators and read by the self-audit advice ' +
      '`tokens_unused_90_days` only; it changes no decision and no served document',
  },
  {
    table: 'api_tokens',
    reason:
      'not yet covered. Credentials are the database access control itself: with SQL write access one can ' +
      'insert a credential outright, and an edited `token_hash` lets whoever holds the matching token in. ' +
      '`ns.credential.*` events are chained but carry no hash (kept out of events by design), so nothing ties them yet',
  },
  { table: 'approvals', columns: ['seq'], reason: SEQ },
  {
    table: 'approvals',
    columns: ['expires_at', 'decided_at', 'updated_at'],
    reason:
      '`expires_at` comes from the configured TTL and is in no record; `decided_at` and `updated_at` are the ' +
      'instants of changes whose own events (`ns.approval.*`) are chained with their `occurred_at`: shown, never ' +
      'decided on (the state itself, `status` and `consumed_by`, is checked against the chain, and so is `bound`)',
  },
  {
    table: 'audit_checkpoints',
    columns: ['document'],
    reason:
      'not yet covered: the stored signed document of a checkpoint other than the latest. verify checks every ' +
      "checkpoint's size and root against the log and the latest one's signature; an older one is served as " +
      'stored, and a reader checking its signature (CONTRACT section 4) finds the edit',
  },
  {
    table: 'audit_state',
    columns: ['id', 'updated_at'],
    reason:
      "the one tip row's key and the time of its last write: verify checks the tip's size, last leaf hash and root",
  },
  {
    table: 'audit_verifications',
    reason:
      'signed verification marks, which a full run (the default) does not read; `from=verified` uses a mark only ' +
      "if its signature verifies with one of the service's keys and it restates its row and the log, else answers " +
      '`verification_mark_invalid`',
  },
  { table: 'backtests', columns: ['seq'], reason: SEQ },
  {
    table: 'backtests',
    columns: ['created_at', 'updated_at'],
    reason:
      'when the backtest began and its row last moved: shown only. An ended backtest (done or failed) is checked ' +
      'against its chained `ns.backtest.completed` (check-backtests.ts); a `running` one only for having no such ' +
      'event: its counts, cursor and partial report move with every page of its job and are in no record until it ends',
  },
  { table: 'bundles', columns: ['seq'], reason: SEQ },
  { table: 'bundles', columns: ['created_by'], reason: CREATED_BY },
  {
    table: 'card_tokens',
    columns: ['network_token', 'created_at', 'updated_at'],
    reason:
      "`network_token` is the processor's token, personal data kept out of events (they outlive erasure) and " +
      'erased with its principal; it is never served and never decided on. The timestamps are shown only',
  },
  { table: 'certification_attestations', columns: ['seq'], reason: SEQ },
  { table: 'certification_attestations', columns: ['created_by'], reason: CREATED_BY },
  { table: 'compliance_reports', columns: ['seq'], reason: SEQ },
  { table: 'compliance_reports', columns: ['created_by'], reason: CREATED_BY },
  {
    table: 'conformance_artifacts',
    reason:
      'what a conformance-kit run created, by run: a display and clean-up marker that default lists and search ' +
      'read to leave those resources out; it changes no decision (docs/conformance.md)',
  },
  { table: 'conformance_runs', columns: ['seq'], reason: SEQ },
  {
    table: 'conformance_runs',
    columns: ['created_by'],
    reason:
      'the credential that ran a self-run, never served nor decided on; for a report a listing brought, the ' +
      "publisher entity, whose key is tried with the citing listings' publishers' keys: an edit can only name " +
      "another entity, and a report counts for a listing only when that listing's own publisher signed it " +
      '(checked at every score)',
  },
  {
    table: 'decisions',
    columns: ['updated_at'],
    reason: 'the instant of the last outcome change, whose own event is chained with its `occurred_at`: shown only',
  },
  {
    table: 'delegation_nonces',
    reason:
      "replay protection of delegators' signed statements: an edit can only let a statement its delegator signed " +
      'be used once more, and the grant that makes is chained and signed with the terms the delegator signed',
  },
  { table: 'dictionaries', columns: ['seq'], reason: SEQ },
  { table: 'dictionaries', columns: ['created_at', 'updated_at'], reason: POLICY_TIMES },
  {
    table: 'entities',
    columns: ['display_name', 'created_at', 'updated_at'],
    reason:
      '`display_name` is personal data kept out of the chain so that erasure can delete it; it is shown, never ' +
      'decided on. The timestamps are shown only',
  },
  {
    table: 'event_operations',
    columns: ['created_at'],
    reason: "when the row was written: not in the operation's committed record, shown only",
  },
  {
    table: 'events',
    columns: ['tx_id'],
    reason:
      "PostgreSQL only: the writing transaction's id, which orders when the event feed shows an event " +
      '(services/events/feed-position.ts); an edit can only hold an event back from readers or show it sooner, ' +
      'never change it (its envelope is checked)',
  },
  {
    table: 'evidence_packs',
    columns: ['created_at'],
    reason: 'when the pack was assembled: the signed pack carries its own instants; shown only',
  },
  {
    table: 'grant_version',
    reason:
      'a counter that tells every instance to drop its grant caches: a changed value makes caches refresh sooner, ' +
      'or later at most until the next change of any grant; it is no fact (grants, revocations are checked)',
  },
  { table: 'grants', columns: ['created_by'], reason: CREATED_BY },
  {
    table: 'idempotency_keys',
    reason:
      'stored answers to retried POSTs, for 24 hours: an edit changes what a retrying client is told, never what ' +
      'was stored, decided or chained (the resource is read from its own table)',
  },
  { table: 'kysely_migration', reason: 'migration bookkeeping: which schema migrations ran; no data of the service' },
  { table: 'kysely_migration_lock', reason: 'migration bookkeeping: the lock one migrating process takes' },
  {
    table: 'mandate_nonces',
    reason:
      'replay protection of the key-binding nonces of accepted AP2 presentations: an edit can only let a nonce be used once more, a presentation is accepted once anyway (its digest is unique and checked), and every mandate accepted is chained',
  },
  {
    table: 'mandates',
    columns: ['vaulted_token_id', 'idempotency_key'],
    reason:
      "`vaulted_token_id` is the PSP's vault token reference, like `card_tokens.network_token` kept out of events; it is shown, never decided on (a purchase is decided on the parent grant's card token). `idempotency_key` is the client's `Idempotency-Key`, an operational echo",
  },
  { table: 'memory_records', columns: ['seq'], reason: SEQ },
  { table: 'memory_tombstones', columns: ['seq'], reason: SEQ },
  {
    table: 'merchants',
    columns: ['display_name', 'created_at', 'updated_at'],
    reason: 'shown only: a decision reads a merchant by id, category and jurisdiction, which are checked',
  },
  { table: 'payload_artefacts', columns: ['seq'], reason: SEQ },
  { table: 'report_schedules', columns: ['seq'], reason: SEQ },
  { table: 'report_schedules', columns: ['created_by'], reason: CREATED_BY },
  {
    table: 'report_schedules',
    columns: ['description'],
    reason:
      "an operator's label for the schedule, shown by `GET /v1/reports/schedules` only: no report carries it and " +
      'it changes no generation',
  },
  {
    table: 'request_nonces',
    reason:
      'replay protection of signed requests within their validity window (minutes): an edit can only let a request ' +
      'its agent signed be answered once more inside that window, and every decision it gets is chained',
  },
  {
    table: 'risk_states',
    columns: ['reason', 'updated_at'],
    reason:
      "the signal's free-text reason and the instant it was stored: in no event, shown only; the state and its " +
      "`expires_at` are checked against the subject's latest chained `ns.risk.state_changed` (check-risk-states.ts)",
  },
  { table: 'rule_activations', columns: ['seq'], reason: SEQ },
  { table: 'rule_activations', columns: ['created_at', 'updated_at'], reason: POLICY_TIMES },
  { table: 'rule_packs', columns: ['seq'], reason: SEQ },
  { table: 'rule_packs', columns: ['created_at', 'updated_at'], reason: POLICY_TIMES },
  { table: 'search_results', columns: ['seq'], reason: SEQ },
  { table: 'self_audit_runs', columns: ['seq'], reason: SEQ },
  { table: 'self_audit_runs', columns: ['created_by'], reason: CREATED_BY },
  {
    table: 'signing_keys',
    reason:
      'not yet covered: the published public keys (JWKS) of every instance. A key inserted here is trusted by every ' +
      'signature check, this one included; `ns.key.rotated` events are chained but not yet compared with the table',
  },
  {
    table: 'spend_counters',
    columns: ['currency'],
    reason:
      "the currency the grant's limits are in, set when the day's row is created: a changed one makes the grant's " +
      'daily limit refuse (decide compares currencies), never allow; `reserved_minor` is checked against the ' +
      'reservations that still count (check-spend-counters.ts, full runs)',
  },
  {
    table: 'store_meta',
    reason:
      'the audit origin, fixed when the store is created and read once at start: an edited origin makes every ' +
      'stored checkpoint fail verify (`checkpoint_origin_mismatch`) from the next start',
  },
  {
    table: 'subject_salts',
    reason:
      "per-subject salts of the subject commitments in audit entries (erasure deletes a subject's salt to unlink " +
      'its entries): an edit only unlinks entries from their subject, as erasure does; it changes no decision',
  },
  {
    table: 'webhook_attempts',
    reason:
      'the delivery log (attempt, status, response of each webhook delivery): what happened on the wire; the ' +
      'events delivered are chained',
  },
  {
    table: 'webhook_endpoints',
    reason:
      'not yet covered: delivery configuration (URL, secret, event filter, cursor). An edited URL sends later ' +
      'deliveries (signed envelopes) elsewhere; an edited secret makes receivers refuse them. `ns.webhook.endpoint_*` ' +
      'events are chained but not yet compared with the table',
  },
];

export function isOutsideTheChain(table: string, column?: string): boolean {
  return OUTSIDE_THE_CHAIN.some(
    (e) => e.table === table && (e.columns === undefined || (column !== undefined && e.columns.includes(column))),
  );
}
