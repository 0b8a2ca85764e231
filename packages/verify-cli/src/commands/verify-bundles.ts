/**
 * `aar-verify bundle FILE... --jwks FILE|URL`: authority proof bundles (CONTRACT section 12) with core's
 * verifyBundle, the one `aar verify-bundle` and `POST /v1/bundles/verify` run: the ten checks in order, replay
 * included, each printed with its detail.
 */
import { verifyBundle, type BundleVerificationResult, type Jwks } from '@aar/core';
import { readJsonFile } from '../read-json-file.ts';
import { EXIT_INVALID, EXIT_VALID, type Output } from '../output.ts';
import type { VerifyFlags } from './verify-packs.ts';

function describe(file: string, result: BundleVerificationResult): string {
  const passed = result.checks.filter((c) => c.ok).length;
  const lines = [`${result.valid ? 'valid  ' : 'INVALID'} ${file}  ${passed} of ${result.checks.length} checks`];
  for (const c of result.checks) lines.push(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.detail ? `: ${c.detail}` : ''}`);
  return `${lines.join('\n')}\n`;
}

export async function verifyBundles(files: string[], jwks: Jwks, flags: VerifyFlags, io: Output): Promise<number> {
  let invalid = 0;
  for (const file of files) {
    const parsed = readJsonFile(file);
    if (!parsed.ok) {
      invalid++;
      io.out(
        flags.json
          ? `${JSON.stringify({ file, valid: false, failure: parsed.reason })}\n`
          : `INVALID ${file}  ${parsed.reason}\n`,
      );
      continue;
    }
    const result = await verifyBundle(parsed.value, jwks, flags.origin === undefined ? {} : { origin: flags.origin });
    if (!result.valid) invalid++;
    const id = (parsed.value as { bundle_id?: unknown } | null)?.bundle_id ?? null;
    io.out(flags.json ? `${JSON.stringify({ file, bundle_id: id, ...result })}\n` : describe(file, result));
  }
  if (!flags.json && files.length > 1) io.out(`${files.length - invalid} of ${files.length} bundles valid\n`);
  return invalid > 0 ? EXIT_INVALID : EXIT_VALID;
}
