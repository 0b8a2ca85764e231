/**
 * `aar-verify`: the offline verifiers of the Agent Authority Runtime for an auditor's machine, without the
 * repository, a database or the service. The only trust is the JWKS the auditor names (`--jwks`); the only network
 * access is fetching it, when it is named by a URL. The verdicts are core's, the same code `aar verify-pack`,
 * `aar verify-bundle`, `aar verify-chain` and the service run.
 */
import { parseArgs } from 'node:util';
import type { Jwks } from '@aar/core';
import { verifyBundles } from './commands/verify-bundles.ts';
import { verifyChains } from './commands/verify-chains.ts';
import { verifyPacks } from './commands/verify-packs.ts';
import { loadTrustedKeys } from './load-trusted-keys.ts';
import { EXIT_UNREADABLE, EXIT_VALID, processOutput, type Output } from './output.ts';
import { UnreadableInput } from './read-json-file.ts';

declare const AAR_VERIFY_VERSION: string | undefined;
const VERSION = typeof AAR_VERIFY_VERSION === 'string' ? AAR_VERIFY_VERSION : 'source';

const USAGE = `aar-verify ${VERSION}: verify Agent Authority Runtime evidence offline

usage:
  aar-verify pack   FILE... --jwks FILE|URL [--origin ORIGIN] [--json]
  aar-verify bundle FILE... --jwks FILE|URL [--origin ORIGIN] [--json]
  aar-verify chain  FILE... --jwks FILE|URL [--now ISO-8601] [--json]

  pack     evidence packs (GET /v1/evidence-packs/{id}): signatures, audit inclusion, checkpoint, replay
  bundle   authority proof bundles (GET /v1/bundles/{id}): the ten checks, replay included
  chain    delegation chains (GET /v1/grants/{id}/chain): signatures, attenuation, consent, expiry at --now
  (verify-pack, verify-bundle and verify-chain are the same commands under aar's names)

  --jwks    the service's public keys you trust: a file (fully offline), a JWKS URL (path ending in /jwks.json)
            or the issuer URL (its /.well-known/jwks.json), fetched once
  --origin  the audit log the checkpoints must come from, e.g. aar.example.com/audit
  --now     judge a chain's expiry at this instant instead of the clock
  --json    one JSON result per line
  FILE      a JSON file, or - for standard input

exit status: 0 every input valid, 1 at least one invalid, 2 usage error or an input or JWKS that cannot be read
`;

type Command = 'pack' | 'bundle' | 'chain';
const COMMANDS: Record<string, Command> = {
  pack: 'pack',
  'verify-pack': 'pack',
  bundle: 'bundle',
  'verify-bundle': 'bundle',
  chain: 'chain',
  'verify-chain': 'chain',
};

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

function usageError(io: Output, message: string): number {
  io.err(`aar-verify: ${message}\n\n${USAGE}`);
  return EXIT_UNREADABLE;
}

export async function main(argv: readonly string[], io: Output = processOutput): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        jwks: { type: 'string' },
        origin: { type: 'string' },
        now: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    return usageError(io, (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    io.out(`${VERSION}\n`);
    return EXIT_VALID;
  }
  if (values.help || positionals.length === 0) {
    io.out(USAGE);
    return values.help ? EXIT_VALID : EXIT_UNREADABLE;
  }
  const [name, ...files] = positionals as [string, ...string[]];
  const command = COMMANDS[name];
  if (command === undefined) return usageError(io, `unknown command \`${name}\``);
  if (files.length === 0) return usageError(io, `${command} needs at least one file`);
  if (values.jwks === undefined) return usageError(io, '--jwks is required: the keys you trust (a file or a URL)');
  if (values.now !== undefined && (command !== 'chain' || !ISO_INSTANT.test(values.now))) {
    return usageError(io, command === 'chain' ? '--now must be an ISO 8601 instant' : '--now applies to chain only');
  }
  if (values.origin !== undefined && command === 'chain') return usageError(io, '--origin does not apply to chain');

  try {
    const jwks: Jwks = await loadTrustedKeys(values.jwks);
    if (command === 'pack') return await verifyPacks(files, jwks, values, io);
    if (command === 'bundle') return await verifyBundles(files, jwks, values, io);
    return await verifyChains(files, jwks, values, io);
  } catch (error) {
    if (!(error instanceof UnreadableInput)) throw error;
    io.err(`aar-verify: ${error.message}\n`);
    return EXIT_UNREADABLE;
  }
}
