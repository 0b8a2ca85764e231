/**
 * `aar verify-bundle FILE... --jwks URL|FILE`: verifies authority proof bundles offline (CONTRACT section 12) with
 * core's verifyBundle and nothing else: no store, no keys of our own, no configuration. The only network access is
 * the JWKS URL (fetched once, cached). Exit status: 0 every bundle valid, 1 at least one invalid, 2 a file or the
 * JWKS could not be read.
 */
import { readFileSync } from 'node:fs';
import { CommanderError, type Command } from 'commander';
import { verifyBundle, type BundleVerificationResult } from '@aar/core';
import { loadJwks } from './jwks-source.ts';

interface VerifyBundleFlags {
  jwks: string;
  jwksCache?: string;
  origin?: string;
  json?: boolean;
}

export function registerVerifyBundleCommand(program: Command): void {
  program
    .command('verify-bundle')
    .description('verify authority proof bundles offline against the issuer JWKS: the ten checks, replay included')
    .argument('<files...>', 'proof bundle JSON files (ns.authority_proof_bundle.v1)')
    .requiredOption(
      '--jwks <url|file>',
      'the issuer keys: a file, or a JWKS URL (path ending in /jwks.json) or the issuer URL (fetched once, then cached)',
    )
    .option('--jwks-cache <file>', 'where a fetched JWKS is cached (default ~/.cache/aar/jwks-<hash>.json)')
    .option('--origin <origin>', 'the audit log the checkpoints must come from, e.g. `aar.example.com/audit`')
    .option('--json', 'print one JSON result per line (the ten checks and the file)')
    .action(async (files: string[], flags: VerifyBundleFlags) => {
      const status = await verifyBundles(files, flags);
      // main() turns a CommanderError into the process exit status
      if (status !== 0) throw new CommanderError(status, 'aar.verifyBundle', status === 1 ? 'invalid bundle' : 'error');
    });
}

async function verifyBundles(files: readonly string[], flags: VerifyBundleFlags): Promise<number> {
  const bundles: Array<{ file: string; bundle: unknown }> = [];
  for (const file of files) {
    try {
      bundles.push({ file, bundle: JSON.parse(readFileSync(file, 'utf8')) });
    } catch (error) {
      process.stderr.write(`aar: cannot read \`${file}\` as JSON: ${(error as Error).message}\n`);
      return 2;
    }
  }
  let jwks;
  try {
    const keyIds = [...new Set(bundles.flatMap((b) => keyIdsOf(b.bundle)))];
    ({ jwks } = await loadJwks(flags.jwks, { cacheFile: flags.jwksCache, keyIds }));
  } catch (error) {
    process.stderr.write(`aar: cannot load the JWKS from \`${flags.jwks}\`: ${(error as Error).message}\n`);
    return 2;
  }
  let invalid = 0;
  for (const { file, bundle } of bundles) {
    const result = await verifyBundle(bundle, jwks, flags.origin === undefined ? {} : { origin: flags.origin });
    if (!result.valid) invalid++;
    const id = (bundle as { bundle_id?: unknown } | null)?.bundle_id;
    process.stdout.write(
      flags.json ? `${JSON.stringify({ file, bundle_id: id ?? null, ...result })}\n` : describe(file, result),
    );
  }
  if (!flags.json && bundles.length > 1) {
    process.stdout.write(`${bundles.length - invalid} of ${bundles.length} bundles valid\n`);
  }
  return invalid > 0 ? 1 : 0;
}

function describe(file: string, result: BundleVerificationResult): string {
  const passed = result.checks.filter((c) => c.ok).length;
  const lines = [`${result.valid ? 'valid  ' : 'INVALID'} ${file}  ${passed} of ${result.checks.length} checks`];
  for (const c of result.checks) {
    lines.push(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.detail ? `: ${c.detail}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Every key id the bundle names (its parts and the chain's links): a cached JWKS must know them all. */
function keyIdsOf(bundle: unknown): string[] {
  const ids: string[] = [];
  const add = (doc: unknown) => {
    const kid = (doc as { signature?: { key_id?: unknown } } | null)?.signature?.key_id;
    if (typeof kid === 'string' && kid.startsWith('ns:key:')) ids.push(kid);
  };
  if (typeof bundle !== 'object' || bundle === null) return ids;
  const b = bundle as Record<string, unknown>;
  for (const doc of [b, b.decision_map, b.evidence_pack, b.checkpoint, b.delegation_chain]) add(doc);
  const links = (b.delegation_chain as { links?: unknown } | null)?.links;
  if (Array.isArray(links)) for (const link of links) add(link);
  return ids;
}
