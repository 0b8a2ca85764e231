/**
 * The keys an auditor trusts, from `--jwks`: a file (nothing fetched: the fully offline way), or a URL fetched once
 * with the SDKs' rule (a path ending in `/jwks.json` is the JWKS itself; any other URL is the issuer, whose JWKS is
 * `<issuer>/.well-known/jwks.json`). Nothing is written to disk.
 * Attacker assumptions: the documents verified never say where keys come from (only the auditor does); the JWKS
 * answer is untrusted bytes: at most 1 MiB, no redirect followed, every key parsed as an Ed25519 public JWK and
 * the rest dropped (a document naming a dropped key then fails as `unknown_key`).
 */
import type { Jwks } from '@aar/core';
import { createJwksSource, readJwks } from '@aar/sdk';
import { readBytes, UnreadableInput } from './read-json-file.ts';
import { parseStrictJsonBytes } from '@aar/core';

export function isUrl(source: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(source);
}

export async function loadTrustedKeys(source: string): Promise<Jwks> {
  if (isUrl(source)) {
    try {
      return await createJwksSource(source).get();
    } catch (error) {
      throw new UnreadableInput(`cannot load the JWKS from \`${source}\`: ${(error as Error).message}`);
    }
  }
  try {
    return readJwks(parseStrictJsonBytes(readBytes(source)));
  } catch (error) {
    if (error instanceof UnreadableInput) throw error;
    throw new UnreadableInput(`\`${source}\` is not a JWKS (\`{ "keys": [...] }\`): ${(error as Error).message}`);
  }
}
