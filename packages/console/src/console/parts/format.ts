/** Display formats: times in UTC (operations teams compare logs across zones), amounts with their currency. */
import { currencyDigits } from '@aar/core';

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A money object of the API (`{ amount, currency }` in major units). */
export function formatAmount(money: { amount: number; currency: string } | null | undefined): string {
  if (!money) return '—';
  const digits = currencyDigits(money.currency) ?? 2;
  return `${money.amount.toFixed(digits)} ${money.currency}`;
}

/** Minor units as stored in decision records (`{ minor, currency }`). */
export function formatMinorAmount(money: { minor: number; currency: string } | null | undefined): string {
  if (!money) return '—';
  const digits = currencyDigits(money.currency) ?? 2;
  return `${(money.minor / 10 ** digits).toFixed(digits)} ${money.currency}`;
}

/** The last part of an id, for compact labels (`ns:entity:agent:shopper-1` -> `shopper-1`). */
export function shortId(id: string | null | undefined): string {
  if (!id) return '—';
  const parts = id.split(':');
  return parts[parts.length - 1] ?? id;
}
