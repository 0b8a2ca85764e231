/**
 * The keys `aar verify-audit` trusts, chosen by the auditor, never read from the store it verifies: the store's
 * `signing_keys` table is data, and whoever rewrote the log could have rewritten it too (with their own key).
 * - `--jwks FILE|URL`: the service's published JWKS as the auditor obtained it (every instance's keys);
 * - otherwise the data dir's own key files (`<data dir>/keys/`, mode 0600): the public half of each, derived from its
 *   private half (a file's stated `x` must agree), so only keys this installation holds are trusted.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { AarError, type Jwks } from '@aar/core';
import { keysDir, readKeyFiles } from '../keys/key-files.ts';
import { publicJwkOf } from '../keys/key-ring.ts';
import { loadJwks, toJwks } from './jwks-source.ts';

export interface TrustedKeys {
  jwks: Jwks;
  /** where they came from, for the report: the JWKS source, or the keys folder */
  source: string;
}

export async function trustedAuditKeys(options: {
  jwks?: string | undefined;
  jwksCache?: string | undefined;
  dataDir: string;
}): Promise<TrustedKeys> {
  if (options.jwks !== undefined) {
    try {
      const { jwks } = await loadJwks(options.jwks, { cacheFile: options.jwksCache });
      if (jwks.keys.length === 0) throw new Error('it holds no Ed25519 public key');
      return { jwks, source: options.jwks };
    } catch (error) {
      throw new AarError(
        'invalid_request',
        `cannot load the JWKS from \`${options.jwks}\`: ${(error as Error).message}`,
      );
    }
  }
  const dir = keysDir(options.dataDir);
  let files;
  try {
    files = readKeyFiles(dir);
  } catch (error) {
    throw new AarError('invalid_request', `cannot read the keys in \`${dir}\`: ${(error as Error).message}`);
  }
  if (files.length === 0) {
    throw new AarError(
      'invalid_request',
      `no signing keys in \`${dir}\`: pass --jwks FILE (the service's JWKS) or the --data-dir that holds its keys`,
    );
  }
  const keys = files.map((file) => {
    const derived = createPublicKey(createPrivateKey({ key: file.private_jwk, format: 'jwk' })).export({
      format: 'jwk',
    }) as { x?: string };
    if (derived.x !== file.private_jwk.x) {
      throw new AarError('invalid_request', `the key file of \`${file.key_id}\` states a public key not its own`);
    }
    return publicJwkOf(file);
  });
  return { jwks: toJwks({ keys }), source: dir };
}
