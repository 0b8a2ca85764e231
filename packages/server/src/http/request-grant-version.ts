/**
 * The grant version read with the credential (authenticate.ts), for routes that ask for it (`config.grantVersion`:
 * authorize): one statement serves both reads, one round trip fewer on PostgreSQL. Each rule stays whole: the token
 * is still checked on this request, and the version is still read before every fact of this request (it is read
 * before the body is even parsed), so it is an ordinary reading for the grant cache (grant-cache.ts `atVersion`).
 * A version serves the one request it was read for, once: a second reader of the same request reads its own.
 */
import type { FastifyRequest } from 'fastify';

const versions = new WeakMap<FastifyRequest, number>();

export function noteGrantVersion(request: FastifyRequest, version: number): void {
  versions.set(request, version);
}

/** The version read with this request's credential, or undefined (then read it: grant-cache.ts `currentVersion`). */
export function takeGrantVersion(request: FastifyRequest): number | undefined {
  const version = versions.get(request);
  versions.delete(request);
  return version;
}
