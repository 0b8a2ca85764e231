// Deterministic Ed25519 keys for the vector generators: the same seed gives the same key, so regenerated vectors
// are byte-identical. Never for anything but vectors.
import { createPrivateKey } from 'node:crypto';

/** The PKCS#8 prefix of an Ed25519 private key (RFC 8410): the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An Ed25519 private key whose 32-byte seed is `fill` repeated, with its JWK and public JWK. */
export function keyFromSeed(fill: number) {
  const der = Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.alloc(32, fill)]);
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const jwk = privateKey.export({ format: 'jwk' }) as { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };
  return { privateKey, jwk, publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x } };
}
