/**
 * Byte comparison for hashes, written by hand (a dozen lines; not worth a dependency). Private to merkle/.
 * Inputs here are public hashes, so an early return leaks nothing worth a constant-time compare.
 */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return false;
  }
  return true;
}
