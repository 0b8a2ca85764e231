/**
 * The delivery record of the webhook endpoints bound to each connector, for the marketplace's operational-record
 * score: attempts made in [from, to) that succeeded, and that failed (`failed` or `exhausted`). Pending attempts are
 * not yet a record. Deleted endpoints take their attempts with them.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';

export interface DeliveryRecord {
  succeeded: number;
  failed: number;
}

export async function connectorDeliveryRecords(
  db: Kysely<Database>,
  connectorIds: readonly string[],
  from: string,
  to: string,
): Promise<Map<string, DeliveryRecord>> {
  const out = new Map<string, DeliveryRecord>(connectorIds.map((id) => [id, { succeeded: 0, failed: 0 }]));
  if (connectorIds.length === 0) return out;
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_endpoints as e', 'e.endpoint_id', 'a.endpoint_id')
    .select(['e.connector_id', 'a.status', sql<number | string>`count(*)`.as('n')])
    .where('e.connector_id', 'in', [...new Set(connectorIds)])
    .where('a.attempted_at', '>=', from)
    .where('a.attempted_at', '<', to)
    .where('a.status', 'in', ['succeeded', 'failed', 'exhausted'])
    .groupBy(['e.connector_id', 'a.status'])
    .execute();
  for (const row of rows) {
    const record = out.get(row.connector_id ?? '');
    if (!record) continue;
    if (row.status === 'succeeded') record.succeeded += Number(row.n);
    else record.failed += Number(row.n);
  }
  return out;
}
