/**
 * `aar verify-pack FILE... --jwks URL|FILE`: verifies evidence packs offline, with core's verifier and nothing
 * else: no store, no keys of our own, no configuration. The only network access is the JWKS URL (fetched once,
 * cached). Exit status: 0 every pack valid, 1 at least one invalid, 2 a file or the JWKS could not be read.
 */
import { readFileSync } from 'node:fs';
import { CommanderError, type Command } from 'commander';
import { verifyEvidencePack, type EvidenceVerificationResult } from '@aar/core';
import { loadJwks } from './jwks-source.ts';

interface VerifyPackFlags {
  jwks: string;
  jwksCache?: string;
  origin?: string;
  json?: boolean;
}

export function registerVerifyPackCommand(program: Command): void {
  program
    .command('verify-pack')
    .description('verify evidence packs offline against the issuer JWKS and replay their decisions')
    .argument('<files...>', 'evidence pack JSON files')
    .requiredOption(
      '--jwks <url|file>',
      'the issuer keys: a file, or a JWKS URL (path ending in /jwks.json) or the issuer URL (fetched once, then cached)',
    )
    .option('--jwks-cache <file>', 'where a fetched JWKS is cached (default ~/.cache/aar/jwks-<hash>.json)')
    .option('--origin <origin>', 'the audit log the checkpoints must come from, e.g. `aar.example.com/audit`')
    .option('--json', 'print one JSON result per line (the verification result and the file)')
    .action(async (files: string[], flags: VerifyPackFlags) => {
      const status = await verifyPacks(files, flags);
      // main() turns a CommanderError into the process exit status
      if (status !== 0) throw new CommanderError(status, 'aar.verifyPack', status === 1 ? 'invalid pack' : 'error');
    });
}

async function verifyPacks(files: readonly string[], flags: VerifyPackFlags): Promise<number> {
  const packs: Array<{ file: string; pack: unknown }> = [];
  for (const file of files) {
    try {
      packs.push({ file, pack: JSON.parse(readFileSync(file, 'utf8')) });
    } catch (error) {
      process.stderr.write(`aar: cannot read \`${file}\` as JSON: ${(error as Error).message}\n`);
      return 2;
    }
  }
  let jwks;
  try {
    ({ jwks } = await loadJwks(flags.jwks, { cacheFile: flags.jwksCache, keyIds: keyIdsOf(packs.map((p) => p.pack)) }));
  } catch (error) {
    process.stderr.write(`aar: cannot load the JWKS from \`${flags.jwks}\`: ${(error as Error).message}\n`);
    return 2;
  }
  let invalid = 0;
  for (const { file, pack } of packs) {
    const result = await verifyEvidencePack(pack, jwks, flags.origin === undefined ? {} : { origin: flags.origin });
    if (!result.valid) invalid++;
    process.stdout.write(flags.json ? `${JSON.stringify({ file, ...result })}\n` : describe(file, result));
  }
  if (!flags.json && packs.length > 1) {
    process.stdout.write(`${packs.length - invalid} of ${packs.length} packs valid\n`);
  }
  return invalid > 0 ? 1 : 0;
}

function describe(file: string, result: EvidenceVerificationResult): string {
  const replay = result.replay_decision;
  const replayed = replay ? `${replay.decision}/${replay.reason}${replay.matches ? '' : ' (MISMATCH)'}` : 'none';
  if (result.valid) return `valid   ${file}  key ${result.key_id}  replay ${replayed}\n`;
  const failed = result.checks.filter((c) => !c.valid).map((c) => `${c.check}: ${c.failure ?? 'failed'}`);
  return `INVALID ${file}  ${failed.join(', ')}\n`;
}

/** Every key id the packs name (pack, decision map, checkpoint): a cached JWKS must know them all. */
function keyIdsOf(packs: readonly unknown[]): string[] {
  const ids = new Set<string>();
  const add = (doc: unknown) => {
    const kid = (doc as { signature?: { key_id?: unknown } } | null)?.signature?.key_id;
    if (typeof kid === 'string') ids.add(kid);
  };
  for (const pack of packs) {
    add(pack);
    if (typeof pack === 'object' && pack !== null) {
      add((pack as Record<string, unknown>).decision_map);
      add((pack as Record<string, unknown>).checkpoint);
    }
  }
  return [...ids];
}
