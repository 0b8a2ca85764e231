/** The order of the Ed25519 base point (RFC 8032 section 5.1). */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** S + L: the malleable twin of a valid signature (same R, scalar not reduced), which strict verifiers refuse. */
export function addL(signature: Uint8Array): Uint8Array {
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i] as number);
  s += L;
  const out = new Uint8Array(signature);
  for (let i = 32; i < 64; i++) {
    out[i] = Number(s & 0xffn);
    s >>= 8n;
  }
  return out;
}
