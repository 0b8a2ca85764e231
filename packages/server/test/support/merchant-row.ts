/** A merchant row to insert directly (write-queue tests need a cheap state change of their own, with a unique key). */
import type { Insertable } from 'kysely';
import type { MerchantsTable } from '../../src/store/index.ts';

export function merchantRow(merchantId: string): Insertable<MerchantsTable> {
  return {
    merchant_id: merchantId,
    display_name: 'M',
    category: '5411',
    jurisdiction: 'DE',
    state: 'active',
    created_at: 't',
    updated_at: 't',
  };
}
