/**
 * `aar-verify chain FILE... --jwks FILE|URL [--now ISO]`: exported delegation chains (`GET /v1/grants/{id}/chain`)
 * with core's verifyDelegationChain, the one `aar verify-chain` runs: every link's signature and attenuation, the
 * delegators' consent, order, limits and expiry, judged at `--now` (default: the clock).
 */
import { verifyDelegationChain, type Jwks, type VerifyDelegationChainResult } from '@aar/core';
import type { Output } from '../output.ts';
import { verifyFiles } from '../verify-files.ts';

export interface VerifyChainFlags {
  now?: string | undefined;
  json?: boolean | undefined;
}

function describe(file: string, result: VerifyDelegationChainResult, now: string): string {
  const lines = [`${result.valid ? 'valid  ' : 'INVALID'} ${file}  ${result.links.length} link(s), judged at ${now}`];
  for (const link of result.links) {
    // a revoked link shows when it was revoked (the document's states[i].revoked_at), never the chain's as_of
    const state = link.state ? `, ${link.state}${link.revoked_at ? ` at ${link.revoked_at}` : ''}` : '';
    const delegator = link.delegator_signed ? ', delegator signed' : '';
    lines.push(
      `  #${link.index} ${link.grant_id ?? '(no grant id)'} -> ${link.actor_entity_id ?? '?'}${delegator}${state}`,
    );
  }
  if (!result.document_signed) lines.push('  (the document itself is not signed by a trusted key: states not judged)');
  for (const p of result.problems) {
    const where = p.index === null ? 'document' : `link #${p.index} ${p.grant_id ?? ''}`.trim();
    lines.push(`  FAIL ${where}: ${p.code}${p.field ? ` at ${p.field}` : ''}: ${p.message}`);
  }
  return `${lines.join('\n')}\n`;
}

export function verifyChains(files: string[], jwks: Jwks, flags: VerifyChainFlags, io: Output): Promise<number> {
  const now = flags.now ?? new Date().toISOString();
  return verifyFiles(files, flags.json, io, {
    noun: 'chains',
    verify: (value) => verifyDelegationChain(value, jwks, now),
    jsonExtra: () => ({ now }),
    describe: (file, result) => describe(file, result, now),
  });
}
