import type { Command } from 'commander';
import { loadConfig, type AppConfig } from '../config.ts';

export interface ConfigFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  databaseUrl?: string;
  issuerUrl?: string;
  logLevel?: string;
  /** serve and audit-serve: start even when the chain's tip does not match its last checkpoint */
  startUnverified?: boolean;
}

/** Flags matching the environment variables of the configuration table; a flag wins over its variable. */
export function withConfigOptions(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'data directory: SQLite file and keys (AAR_DATA_DIR, default ./data)')
    .option('--database-url <url>', 'PostgreSQL connection string (DATABASE_URL); SQLite when absent');
}

export function configFrom(flags: ConfigFlags): AppConfig {
  const overrides: Partial<AppConfig> = {};
  if (flags.host) overrides.host = flags.host;
  if (flags.port) overrides.port = Number(flags.port);
  if (flags.dataDir) overrides.dataDir = flags.dataDir;
  if (flags.databaseUrl) overrides.databaseUrl = flags.databaseUrl;
  if (flags.issuerUrl) overrides.issuerUrl = flags.issuerUrl;
  if (flags.logLevel) overrides.logLevel = flags.logLevel;
  if (flags.startUnverified) overrides.startUnverified = true;
  if (
    overrides.port !== undefined &&
    (!Number.isInteger(overrides.port) || overrides.port < 0 || overrides.port > 65535)
  ) {
    throw new Error(`--port must be a port number, got \`${flags.port}\``);
  }
  return loadConfig(process.env, overrides);
}
