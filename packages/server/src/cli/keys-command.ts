import type { Command } from 'commander';
import { openRuntime } from '../runtime.ts';
import { rotateSigningKey } from '../services/keys/rotate-signing-key.ts';
import { configFrom, withConfigOptions, type ConfigFlags } from './config-options.ts';

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('manage the service signing keys');

  withConfigOptions(keys.command('list').description('list published signing keys with their validity')).action(
    async (flags: ConfigFlags) => {
      const ctx = await openRuntime(configFrom(flags));
      try {
        const current = ctx.keys.current().keyId;
        for (const k of (await ctx.keys.jwks()).keys) {
          process.stdout.write(
            `${k.kid}\t${k.kid === current ? 'current' : k.valid_until ? 'rotated' : 'other-instance'}\tfrom ${k.valid_from}${k.valid_until ? ` until ${k.valid_until}` : ''}\n`,
          );
        }
      } finally {
        await ctx.store.close();
      }
    },
  );

  withConfigOptions(keys.command('rotate').description('make a new signing key; the old one stays published')).action(
    async (flags: ConfigFlags) => {
      const ctx = await openRuntime(configFrom(flags));
      try {
        const { retired, current } = await rotateSigningKey(ctx, null);
        process.stdout.write(
          `rotated: ${retired} -> ${current}\nsend SIGHUP to a running \`aar serve\` on this data dir to sign with the new key\n`,
        );
      } finally {
        await ctx.store.close();
      }
    },
  );
}
