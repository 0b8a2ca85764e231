/**
 * `aar`: serve, migrate, tokens, keys, openapi (CONTRACT section 11). Every command reads the same configuration
 * (environment, then flags). Secrets go to stdout exactly once (`tokens create`) and never to a log.
 */
import { Command, CommanderError } from 'commander';
import { isAarError } from '@aar/core';
import { ConfigError } from '../config.ts';
import { SERVER_VERSION } from '../http/server-version.ts';
import { registerAuditServeCommand } from './audit-serve-command.ts';
import { registerKeyCommands } from './keys-command.ts';
import { registerMigrateCommand } from './migrate-command.ts';
import { registerOpenApiCommand } from './openapi-command.ts';
import { registerServeCommand } from './serve-command.ts';
import { registerTokenCommands } from './tokens-command.ts';
import { registerVerifyChainCommand } from './verify-chain-command.ts';
import { registerVerifyPackCommand } from './verify-pack-command.ts';

export function buildCli(): Command {
  const program = new Command('aar')
    .description('Agent Authority Runtime: decides whether an AI agent may act for a principal, and proves it')
    .version(SERVER_VERSION, '-V, --version', 'print the version and exit')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  registerServeCommand(program);
  registerMigrateCommand(program);
  registerTokenCommands(program);
  registerKeyCommands(program);
  registerOpenApiCommand(program);
  registerVerifyChainCommand(program);
  registerAuditServeCommand(program);
  registerVerifyPackCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildCli().parseAsync(argv);
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
