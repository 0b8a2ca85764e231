/**
 * `aar-verify bundle FILE... --jwks FILE|URL`: authority proof bundles (CONTRACT section 12) with core's
 * verifyBundle, the one `aar verify-bundle` and `POST /v1/bundles/verify` run: the ten checks in order, replay
 * included, each printed with its detail.
 */
import { verifyBundle, type BundleVerificationResult, type Jwks } from '@aar/core';
import type { Output } from '../output.ts';
import { verifyFiles } from '../verify-files.ts';
import type { VerifyFlags } from './verify-packs.ts';

function describe(file: string, result: BundleVerificationResult): string {
  const passed = result.checks.filter((c) => c.ok).length;
  const lines = [`${result.valid ? 'valid  ' : 'INVALID'} ${file}  ${passed} of ${result.checks.length} checks`];
  for (const c of result.checks) lines.push(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.detail ? `: ${c.detail}` : ''}`);
  return `${lines.join('\n')}\n`;
}

export function verifyBundles(files: string[], jwks: Jwks, flags: VerifyFlags, io: Output): Promise<number> {
  return verifyFiles(files, flags.json, io, {
    noun: 'bundles',
    verify: (value) => verifyBundle(value, jwks, flags.origin === undefined ? {} : { origin: flags.origin }),
    jsonExtra: (value) => ({ bundle_id: (value as { bundle_id?: unknown } | null)?.bundle_id ?? null }),
    describe,
  });
}
