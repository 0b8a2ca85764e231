/**
 * Minor units to a display amount ("30.00 EUR", "5000 JPY", "12.500 BHD") for map labels, by string arithmetic only.
 * The exponents are ISO 4217's; this small copy keeps decision-map free of the money module, which stays the
 * authority for parsing and validation (replace this table with its lookup when both are in place).
 */
const ZERO_DECIMALS = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' ');
const THREE_DECIMALS = 'BHD IQD JOD KWD LYD OMR TND'.split(' ');
const FOUR_DECIMALS = 'CLF UYW'.split(' ');

export function currencyExponent(currency: string): number {
  if (ZERO_DECIMALS.includes(currency)) return 0;
  if (THREE_DECIMALS.includes(currency)) return 3;
  return FOUR_DECIMALS.includes(currency) ? 4 : 2;
}

/** Formats a non-negative safe integer of minor units; anything else is shown as `?`. */
export function formatMinor(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor) || minor < 0) return `? ${currency}`;
  const exponent = currencyExponent(currency);
  if (exponent === 0) return `${minor} ${currency}`;
  const digits = String(minor).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)} ${currency}`;
}
