/**
 * No card number in stored data (CONTRACT section 7: raw card numbers are never accepted). Input is refused at the
 * edge; this looks for what got past it anyway: a value written before a detector fix, a column written outside the
 * service, a path nobody guarded. Every text column that holds caller-influenced data is read page by page (bounded
 * per table) and walked with core's PAN detector (core/pan); JSON values are walked member by member.
 * Findings name table, row, column and JSON pointer, masked: a card number never reaches the report.
 * Columns people write in (`freeText`: names, titles, labels, reasons) are read as free text, like the same members
 * inside JSON (core's isFreeTextMember): there a card number next to hex letters is no digest (issue 26).
 */
import { containsPan, findPan, maskLongDigitRuns } from '@aar/core';
import { sql } from 'kysely';
import type { AppContext } from '../../../app-context.ts';
import { decodeDecisionRecordWithoutPolicySet } from '../../decisions/record-codec.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

interface ScannedTable {
  table: string;
  key: string;
  columns: readonly string[];
  /** plain-text columns people write in, read as free text (a bare UUID or hex token there is not skipped) */
  freeText?: readonly string[];
  /** binary columns, with how to read them as text */
  decoders?: Readonly<Record<string, (blob: Uint8Array) => string>>;
}

/** What callers and agents can put into the store. Keys are text ids, so pages follow them in order. */
export const SCANNED_TABLES: readonly ScannedTable[] = [
  { table: 'entities', key: 'entity_id', columns: ['display_name', 'public_key_jwk'], freeText: ['display_name'] },
  { table: 'card_tokens', key: 'card_token_id', columns: ['network_token', 'network', 'expires'] },
  { table: 'merchants', key: 'merchant_id', columns: ['display_name', 'category'], freeText: ['display_name'] },
  { table: 'grants', key: 'grant_id', columns: ['scope', 'document'] },
  // since migration 0010 the record is stored compressed in `record`; older rows keep the JSON columns
  {
    table: 'decisions',
    key: 'policy_decision_id',
    columns: ['request', 'snapshot', 'result', 'record'],
    decoders: { record: decodeDecisionRecordWithoutPolicySet },
  },
  { table: 'approvals', key: 'approval_id', columns: ['bound', 'sca_reference'] },
  { table: 'risk_states', key: 'entity_id', columns: ['reason'], freeText: ['reason'] },
  { table: 'events', key: 'event_id', columns: ['envelope'] },
  { table: 'evidence_packs', key: 'evidence_pack_id', columns: ['document'] },
  { table: 'audit_entries', key: 'audit_id', columns: ['entry'] },
  { table: 'webhook_endpoints', key: 'endpoint_id', columns: ['url', 'description'], freeText: ['description'] },
  { table: 'api_tokens', key: 'token_id', columns: ['label'], freeText: ['label'] },
  {
    table: 'listings',
    key: 'listing_id',
    columns: ['title', 'publisher_name', 'document'],
    freeText: ['title', 'publisher_name'],
  },
];

export const MAX_ROWS_PER_TABLE = 100_000;
const PAGE = 1000;
const MAX_FINDINGS = 20;

export interface CardNumberFinding {
  table: string;
  id: string;
  column: string;
  /** RFC 6901 pointer inside a JSON value; '' for the whole (or a non-JSON) value */
  pointer: string;
}

/**
 * The service's own signing-key ids (`ns:key:ed25519-<yyyymmdd>-<8 hex>`, keys/key-ring.ts) are minted here, never
 * caller input, yet about 7 % of them read as a card number to the detector ("25519" + the date + leading hex
 * digits, joined by single separators, can pass Luhn). They are masked before the scan so every signed document
 * does not count as a finding.
 */
const SERVICE_KEY_ID = /ns:key:ed25519-[0-9]{8}-[0-9a-f]{8}(?![0-9a-f])/g;

/**
 * Where in `text` a card number is: a pointer into its JSON, '' for plain text; undefined when none.
 * Free text skips the fewest shapes, so a value it finds nothing in holds nothing under any reading: that is the cheap
 * first pass. Then a free-text column is a finding; JSON is walked member by member (its free-text members read as
 * such, its ids and digests not); any other text is read as an id would be.
 */
function panIn(raw: string, freeText: boolean): string | undefined {
  const text = raw.replace(SERVICE_KEY_ID, 'ns:key:service');
  if (!containsPan(text, { freeText: true })) return undefined;
  if (freeText) return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return containsPan(text) ? '' : undefined;
  }
  // fail closed: what the whole text shows under the id reading is a finding even where the walk sees none
  return findPan(parsed) ?? (containsPan(text) ? '' : undefined);
}

export async function checkStoredCardNumbers(ctx: AppContext): Promise<SelfAuditCheck> {
  const db = ctx.store.db;
  const findings: CardNumberFinding[] = [];
  let total = 0;
  let rows = 0;
  const truncated: string[] = [];
  for (const source of SCANNED_TABLES) {
    let after: string | null = null;
    let scanned = 0;
    while (scanned < MAX_ROWS_PER_TABLE) {
      const cols = source.columns.map((c) => sql.ref(c));
      const page: Array<Record<string, unknown>> = (
        await sql<Record<string, unknown>>`select ${sql.ref(source.key)} as aar_key, ${sql.join(cols)}
          from ${sql.table(source.table)}
          ${after === null ? sql`` : sql`where ${sql.ref(source.key)} > ${after}`}
          order by ${sql.ref(source.key)} limit ${PAGE}`.execute(db)
      ).rows;
      for (const row of page) {
        for (const column of source.columns) {
          const raw = row[column];
          const decode = source.decoders?.[column];
          const value = decode && raw instanceof Uint8Array ? decode(raw) : raw;
          if (typeof value !== 'string') continue;
          const pointer = panIn(value, source.freeText?.includes(column) === true);
          if (pointer === undefined) continue;
          total++;
          if (findings.length < MAX_FINDINGS) {
            findings.push({
              table: source.table,
              id: unlessPan(String(row.aar_key)),
              column,
              pointer: unlessPan(pointer),
            });
          }
        }
      }
      scanned += page.length;
      if (page.length < PAGE) break;
      after = String(page[page.length - 1]!.aar_key);
    }
    rows += scanned;
    if (scanned >= MAX_ROWS_PER_TABLE) truncated.push(source.table);
  }
  const evidence = {
    tables: SCANNED_TABLES.map((t) => t.table),
    rows_scanned: rows,
    max_rows_per_table: MAX_ROWS_PER_TABLE,
    truncated_tables: truncated,
    card_numbers_found: total,
    findings,
  };
  if (total > 0) {
    return failed(
      'no_card_numbers_stored',
      'fail',
      `${total} stored values hold a card number`,
      evidence,
      'Card data is in the store: treat it as a PCI DSS incident. Find how each value got in (the row named in ' +
        '`findings`), close that path, then remove the value by erasing its entity (DELETE /v1/entities/{id}) or, ' +
        'for write-once records, with your incident process; GET /v1/audit/verify will name any record you change.',
    );
  }
  if (truncated.length > 0) {
    return failed(
      'no_card_numbers_stored',
      'warn',
      `no card number in the ${rows} rows scanned, but ${truncated.length} tables were scanned only in part`,
      evidence,
      `Tables named in \`truncated_tables\` hold more than ${MAX_ROWS_PER_TABLE} rows: scan the rest offline.`,
    );
  }
  return passed('no_card_numbers_stored', `no card number in ${rows} stored rows`, evidence);
}

/**
 * A row id or pointer as the report may show it: starred only when it holds a card number itself. Starring every run
 * of 12 digits garbled minted ids whose UUID happens to hold one across its hyphens (`…-75c4-9574-8897…`), leaving the
 * operator a finding they could not look up; the detector already knows a UUID is no card number.
 */
export function unlessPan(text: string): string {
  return containsPan(text) ? maskLongDigitRuns(text) : text;
}
