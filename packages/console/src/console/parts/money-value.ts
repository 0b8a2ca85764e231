/**
 * A money value in whichever of the service's shapes a document carries it: the API's wire form
 * `{ amount, currency }` (major units, CONTRACT section 2), decision records' `{ minor, currency }`, or the preview
 * documents' `{ amount_minor, currency }` (integer minor units). Each is formatted by format.ts's exact helpers, so no
 * amount goes through float arithmetic here. Attacker assumption: the value is untrusted JSON; anything else is shown
 * as "—" rather than guessed at.
 */
import { formatAmount, formatMinorAmount } from './format.ts';

export type MoneyValue =
  | { amount: number; currency: string }
  | { minor: number; currency: string }
  | { amount_minor: number; currency: string };

export function isMoneyValue(value: unknown): value is MoneyValue {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (typeof v.currency !== 'string') return false;
  return typeof v.amount === 'number' || typeof v.minor === 'number' || typeof v.amount_minor === 'number';
}

export function formatMoneyValue(value: unknown): string {
  if (!isMoneyValue(value)) return '—';
  if ('amount_minor' in value) return formatMinorAmount({ minor: value.amount_minor, currency: value.currency });
  if ('minor' in value) return formatMinorAmount(value);
  return formatAmount(value);
}
