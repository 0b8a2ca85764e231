import type { Selectable } from 'kysely';
import type { MerchantsTable } from '../../store/index.ts';

export type MerchantView = Omit<Selectable<MerchantsTable>, 'seq'>;

export function merchantView(row: Selectable<MerchantsTable>): MerchantView {
  const { seq: _seq, ...view } = row;
  return view;
}
