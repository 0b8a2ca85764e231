/**
 * The exact decimal value of a JSON number literal or of `Number.prototype.toString()` output, without floats:
 * value = (negative ? -1 : 1) * BigInt(digits) * 10^scale, `digits` without leading or trailing zeros ('' for zero).
 * PRECONDITION: `text` matches `-?digits(.digits)?([eE][+-]?digits)?` (callers validate the grammar first).
 */
export interface DecimalParts {
  negative: boolean;
  digits: string;
  scale: number;
}

export function decimalParts(text: string): DecimalParts {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const e = body.search(/[eE]/);
  const mantissa = e === -1 ? body : body.slice(0, e);
  // An absurd exponent parses to a huge or infinite number; callers reject those values before using `scale`.
  const exponent = e === -1 ? 0 : Number(body.slice(e + 1));
  const point = mantissa.indexOf('.');
  const whole = point === -1 ? mantissa : mantissa.slice(0, point);
  const fraction = point === -1 ? '' : mantissa.slice(point + 1);
  const all = (whole + fraction).replace(/^0+/, '');
  const digits = all.replace(/0+$/, '');
  if (digits === '') return { negative, digits: '', scale: 0 };
  return { negative, digits, scale: exponent - fraction.length + (all.length - digits.length) };
}
