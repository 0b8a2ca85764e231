/**
 * The address of a perfect subtree: leaves [begin, end) where end - begin is a power of two 2^h and begin is a
 * multiple of it. Written by hand with the rest of merkle/ (RFC 9162; no well-kept JS library has this API).
 * Every stored node of a log is one of these; the right border of a non-perfect tree is not, and is recomputed.
 */
import { isPowerOfTwo, isTreeSize } from './tree-math.ts';

export interface PerfectRange {
  begin: number;
  end: number;
}

export function isPerfectRange(begin: number, end: number): boolean {
  return (
    isTreeSize(begin) && isTreeSize(end) && end > begin && isPowerOfTwo(end - begin) && begin % (end - begin) === 0
  );
}
