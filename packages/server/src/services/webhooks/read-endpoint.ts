import { AarError } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { WebhookEndpointRow } from './endpoint-view.ts';

export const ENDPOINT_ID_PREFIX = 'ns:webhook_endpoint:';

/** The endpoint row, or `not_found`. `db` may be a transaction. */
export async function readEndpoint(db: Kysely<Database>, endpointId: string): Promise<WebhookEndpointRow> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `webhook endpoint \`${endpointId}\` does not exist`);
  return row;
}
