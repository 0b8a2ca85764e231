/**
 * Integer helpers for tree sizes and indices, written by hand. Private to merkle/.
 * INVARIANT: JS bitwise operators truncate to 32 bits, and a log may outgrow 2^32 leaves, so every helper here uses
 * exact arithmetic on safe integers (< 2^53) instead of `&`, `>>` or `>>>`.
 */

/** A tree size or leaf index: a non-negative safe integer. Values arrive from the network: never assume. */
export function isTreeSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function isOdd(n: number): boolean {
  return n % 2 === 1;
}

/** n >> 1 for a non-negative safe integer. */
export function half(n: number): number {
  return Math.floor(n / 2);
}

/** The largest power of two strictly below n; requires n >= 2 (the split point k of RFC 9162 2.1.1). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export function isPowerOfTwo(n: number): boolean {
  if (n < 1) return false;
  let m = n;
  while (m % 2 === 0) m /= 2;
  return m === 1;
}

/** Number of one bits of a non-negative safe integer. */
export function countOnes(n: number): number {
  let count = 0;
  for (let m = n; m > 0; m = half(m)) {
    if (isOdd(m)) count++;
  }
  return count;
}
