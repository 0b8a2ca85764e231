/**
 * `aar`: serve, migrate, tokens, keys, openapi (CONTRACT section 11). Every command reads the same configuration
 * (environment, then flags). Secrets go to stdout exactly once (`tokens create`) and never to a log.
 */
import { Command, CommanderError } from 'commander';
import { isAarError } from '@aar/core';
import { ConfigError } from '../config.ts';
import { SERVER_VERSION } from '../http/server-version.ts';

type Register = (program: Command) => void;

/**
 * Each command's module is imported only when that command runs: `aar --version` or `aar verify-pack` never load
 * Fastify, the store drivers or the server. Help (no command, or an unknown one) loads them all.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  serve: async () => (await import('./serve-command.ts')).registerServeCommand,
  migrate: async () => (await import('./migrate-command.ts')).registerMigrateCommand,
  tokens: async () => (await import('./tokens-command.ts')).registerTokenCommands,
  keys: async () => (await import('./keys-command.ts')).registerKeyCommands,
  openapi: async () => (await import('./openapi-command.ts')).registerOpenApiCommand,
  'verify-chain': async () => (await import('./verify-chain-command.ts')).registerVerifyChainCommand,
  'verify-audit': async () => (await import('./verify-audit-command.ts')).registerVerifyAuditCommand,
  'audit-serve': async () => (await import('./audit-serve-command.ts')).registerAuditServeCommand,
  'verify-pack': async () => (await import('./verify-pack-command.ts')).registerVerifyPackCommand,
  'verify-bundle': async () => (await import('./verify-bundle-command.ts')).registerVerifyBundleCommand,
  conformance: async () => (await import('./conformance-command.ts')).registerConformanceCommand,
  'rule-packs': async () => (await import('./rule-packs-command.ts')).registerRulePackCommands,
  mcp: async () => (await import('./mcp-command.ts')).registerMcpCommand,
};

const VERSION_FLAGS = new Set(['-V', '--version']);

export async function buildCli(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('aar')
    .description('Agent Authority Runtime: decides whether an AI agent may act for a principal, and proves it')
    .version(SERVER_VERSION, '-V, --version', 'print the version and exit')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  const first = argv[2];
  if (first !== undefined && VERSION_FLAGS.has(first)) return program;
  const own = first !== undefined && Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  const wanted = own ? [own] : Object.values(COMMANDS);
  for (const register of await Promise.all(wanted.map((load) => load()))) register(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await (await buildCli(argv)).parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ConfigError || isAarError(error)) {
      process.stderr.write(`aar: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`aar: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
