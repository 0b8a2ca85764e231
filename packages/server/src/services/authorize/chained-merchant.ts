/**
 * A merchant is honoured only as the chain backs it (chained-state.ts), by verify's rule (check-merchants.ts): its
 * id, category (what `blocked_merchant_categories` decides on) and jurisdiction (what `allowed_jurisdictions`
 * decides on) are those its `ns.merchant.created` event names, whose envelope its audit entry must commit to (by
 * SHA-256 digest; no signature check), and its state is `active` (the service never changes a merchant after it is
 * written). Attacker: the database but not the key, turning a blocked category (7995) into an allowed one (5411),
 * or a jurisdiction outside a grant's into one inside it.
 *
 * Merchant ids are not personal data: the event's `subject_ref` is `ns:merchant:<id>`, plain.
 *
 * COST: the creation event comes in the same statement as the row (cached-facts.ts, index `events_subject`,
 * migration 0016), and only on a fact miss; a checked (row, event) content is kept in the instance's
 * ChainedStateCache.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { assertEnvelopesCommitted, digestOf, envelopeOf } from './chained-events.ts';
import { integrityFailure, type ChainedStateCache } from './chained-state.ts';

export const MERCHANT_CREATED = 'ns.merchant.created';

/** The `subject_ref` of a merchant's events. */
export function merchantSubject(merchantId: string): string {
  return `ns:merchant:${merchantId}`;
}

export interface MerchantWithEvent {
  merchant_id: string;
  category: string;
  jurisdiction: string;
  state: string;
  /** the envelope text of the merchant's `ns.merchant.created` event, null when it has none */
  created_event: string | null;
}

/** Throws integrityFailure (table `merchants`) unless the row is what the merchant's chained creation says. */
export async function assertMerchantChained(
  db: Kysely<Database>,
  cache: ChainedStateCache,
  row: MerchantWithEvent,
): Promise<void> {
  const key = [
    'merchant',
    row.merchant_id,
    digestOf(row.created_event),
    row.category,
    row.jurisdiction,
    row.state,
  ].join('\n');
  if (cache.has(key)) return;
  const fail = (column: string) => integrityFailure('merchants', row.merchant_id, column);

  const created = row.created_event === null ? null : envelopeOf(row.created_event);
  if (!created || created.subject_ref !== merchantSubject(row.merchant_id) || created.event_type !== MERCHANT_CREATED) {
    throw fail('merchant_id');
  }
  const data = created.data ?? {};
  const expected: Array<[string, unknown, unknown]> = [
    ['merchant_id', row.merchant_id, data.merchant_id],
    ['category', row.category, data.category],
    ['jurisdiction', row.jurisdiction, data.jurisdiction],
    ['state', row.state, 'active'],
  ];
  const differs = expected.find(([, stored, committed]) => stored !== committed);
  if (differs) throw fail(differs[0]);
  await assertEnvelopesCommitted(db, [{ envelope: created, column: 'merchant_id' }], fail);
  cache.add(key);
}
