/**
 * Display formats: times in UTC (operations teams compare logs across zones), amounts with their currency. Amounts
 * go through integer minor units with core's exact conversions (parseAmount, formatMoney): no float arithmetic, and
 * every minor digit of the currency (2 for EUR, 0 for JPY, 3 for BHD).
 */
import { formatMoney, parseAmount } from '@aar/core';

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A money object of the API (`{ amount, currency }` in major units), read exactly into minor units first. */
export function formatAmount(money: { amount: number; currency: string } | null | undefined): string {
  if (!money) return '—';
  try {
    return formatMoney(parseAmount(money.amount, money.currency, '/amount', '/currency'));
  } catch {
    // not an amount this service would answer (unknown currency, too many decimals): shown as given
    return `${String(money.amount)} ${money.currency}`;
  }
}

/** Minor units as stored in decision records (`{ minor, currency }`). */
export function formatMinorAmount(money: { minor: number; currency: string } | null | undefined): string {
  if (!money) return '—';
  try {
    return formatMoney(money);
  } catch {
    return `${String(money.minor)} minor units of ${money.currency}`;
  }
}

/** The last part of an id, for compact labels (`ns:entity:agent:shopper-1` -> `shopper-1`). */
export function shortId(id: string | null | undefined): string {
  if (!id) return '—';
  const parts = id.split(':');
  return parts[parts.length - 1] ?? id;
}
