/**
 * The cryptography no authorize can skip, timed in the runner's process in the same run as the load: one Ed25519
 * verification (the agent's request signature) and one Ed25519 signature (the decision map), with node:crypto as the
 * service calls it (a KeyObject made once, `verify`/`sign` with a null digest), over messages the size of what the
 * service verifies and signs. Added to the echo's CPU per request (what any Fastify service spends on the exchange
 * itself), it is a floor of CPU per authorize that no change short of the protocol removes: the notes set it beside
 * issue 10's budget of 12 times the echo's CPU. Measured as CPU time of this process (user + system), hot loop, one
 * thread: a service doing other work between two signatures pays more for each (colder caches), never less.
 */
import { generateKeyPairSync, sign, verify } from 'node:crypto';

/** an RFC 9421 signature base of the benchmark's requests: @method, @target-uri, content-digest and the params */
const SIGNATURE_BASE_BYTES = 320;
/** the canonical text of an allowed decision map without its signature (~1.9 KB in the benchmark's answers) */
const DECISION_MAP_BYTES = 1900;

export interface CryptoFloor {
  /** CPU microseconds of one Ed25519 verification */
  verifyUs: number;
  /** CPU microseconds of one Ed25519 signature */
  signUs: number;
}

export function measureCryptoFloor(iterations = 2000): CryptoFloor {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const base = Buffer.alloc(SIGNATURE_BASE_BYTES, 'a');
  const map = Buffer.alloc(DECISION_MAP_BYTES, 'b');
  const signature = sign(null, base, privateKey);
  // what is timed must do the work: a signature that verifies, and one that does not
  if (!verify(null, base, publicKey, signature)) throw new Error('the floor signature does not verify');
  if (verify(null, map, publicKey, signature)) throw new Error('the floor verifier accepts a wrong message');
  const verifyUs = cpuMicrosecondsPer(iterations, () => verify(null, base, publicKey, signature));
  const signUs = cpuMicrosecondsPer(iterations, () => sign(null, map, privateKey));
  return { verifyUs, signUs };
}

/** CPU time per call of `work`, after a warm-up of a tenth as many calls */
function cpuMicrosecondsPer(iterations: number, work: () => unknown): number {
  for (let i = 0; i < Math.ceil(iterations / 10); i++) work();
  const before = process.cpuUsage();
  for (let i = 0; i < iterations; i++) work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / iterations;
}
