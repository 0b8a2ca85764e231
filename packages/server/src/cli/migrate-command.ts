import type { Command } from 'commander';
import { migrateStore, openStore } from '../store/index.ts';
import { join } from 'node:path';
import { configFrom, withConfigOptions, type ConfigFlags } from './config-options.ts';

export function registerMigrateCommand(program: Command): void {
  withConfigOptions(program.command('migrate').description('apply pending database migrations and exit')).action(
    async (flags: ConfigFlags) => {
      const config = configFrom(flags);
      const store = openStore({ databaseUrl: config.databaseUrl, sqliteFile: join(config.dataDir, 'aar.sqlite') });
      try {
        const applied = await migrateStore(store);
        process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'up to date\n');
      } finally {
        await store.close();
      }
    },
  );
}
