/**
 * Minor units to a display amount ("30.00 EUR", "5000 JPY", "12.500 BHD") for map labels. The snapshot may be
 * malformed (labels are built even for a fail-closed deny), so this never throws: anything money/ refuses to format
 * is shown as `?`.
 */
import { formatMoney } from '../money/money-format.ts';

export function formatMinor(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor) || minor < 0) return `? ${currency}`;
  try {
    return formatMoney({ minor, currency });
  } catch {
    return `? ${currency}`;
  }
}
