import type { Command } from 'commander';
import { decodeCursor } from '../routes/pagination.ts';
import { openRuntime } from '../runtime.ts';
import { createToken, listTokens, revokeToken } from '../services/tokens/manage-tokens.ts';
import type { Role } from '../store/index.ts';
import { SCOPES } from '../http/token-scopes.ts';
import { configFrom, withConfigOptions, type ConfigFlags } from './config-options.ts';

const ROLES: readonly Role[] = ['admin', 'runtime', 'principal', 'auditor', 'pep'];

type CreateFlags = ConfigFlags & {
  role: string;
  principal?: string;
  label?: string;
  connector?: string;
  scopes?: string;
  json?: boolean;
};

export function registerTokenCommands(program: Command): void {
  const tokens = program.command('tokens').description('manage API tokens');

  withConfigOptions(tokens.command('create').description('create a token; prints the secret once'))
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--principal <id>', 'the principal a principal-role token acts for')
    .option('--label <label>', 'a note to recognise the token by')
    .option('--connector <id>', 'bind it to a catalogue connector (`ns:connector:<family>:<name>`)')
    .option(
      '--scopes <list>',
      `token scopes of opt-in capabilities, comma-separated (${SCOPES.join(', ')}); the capability must be in AAR_OPT_IN`,
    )
    .option('--json', 'print the whole record as JSON')
    .action(async (flags: CreateFlags) => {
      if (!(ROLES as readonly string[]).includes(flags.role))
        throw new Error(`--role must be one of ${ROLES.join(', ')}`);
      const ctx = await openRuntime(configFrom(flags));
      try {
        const created = await createToken(ctx, null, {
          role: flags.role as Role,
          principal_entity_id: flags.principal,
          label: flags.label,
          connector_id: flags.connector,
          scopes: scopesFlag(flags.scopes),
        });
        process.stdout.write(flags.json ? `${JSON.stringify(created, null, 2)}\n` : `${created.token}\n`);
        if (!flags.json)
          process.stderr.write(`created ${created.token_id} (${created.role}); the secret above is not shown again\n`);
      } finally {
        await ctx.store.close();
      }
    });

  withConfigOptions(tokens.command('list').description('list tokens (ids and roles, never secrets)')).action(
    async (flags: ConfigFlags) => {
      const ctx = await openRuntime(configFrom(flags));
      try {
        let cursor: string | null = null;
        do {
          const page = await listTokens(ctx, { limit: 500, afterSeq: decodeCursor(cursor ?? undefined) });
          for (const t of page.items) {
            process.stdout.write(
              `${t.token_id}\t${t.role}\t${t.principal_entity_id ?? '-'}\t${t.scopes.length > 0 ? t.scopes.join(',') : '-'}\t${t.revoked_at ? `revoked ${t.revoked_at}` : 'active'}\t${t.label ?? ''}\n`,
            );
          }
          cursor = page.next_cursor;
        } while (cursor);
      } finally {
        await ctx.store.close();
      }
    },
  );

  withConfigOptions(tokens.command('revoke').description('revoke a token').argument('<token_id>')).action(
    async (tokenId: string, flags: ConfigFlags) => {
      const ctx = await openRuntime(configFrom(flags));
      try {
        const t = await revokeToken(ctx, null, tokenId);
        process.stdout.write(`revoked ${t.token_id} at ${t.revoked_at}\n`);
      } finally {
        await ctx.store.close();
      }
    },
  );
}

/** `--scopes a,b`: the names as given (blank entries dropped); createToken checks each against the closed list. */
function scopesFlag(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
