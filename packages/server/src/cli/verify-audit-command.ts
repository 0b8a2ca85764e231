/**
 * `aar verify-audit`: verifies a deployment's audit log offline, without the server, with the very check of
 * `GET /v1/audit/verify` (audit/verify-audit-log.ts): every entry's bytes, hash links and tree nodes, the tip, every
 * stored record against the digest its entry commits to, every stored checkpoint, and the latest checkpoint's root
 * and signature. It reads the store (`--data-dir`'s SQLite file or `--database-url`) read-only and writes nothing (no
 * verification mark). Exit 0 valid, 1 invalid (the failure names the entry and the record), 2 usage error or a store
 * or JWKS that cannot be read.
 * Attacker assumption: everything in the store may have been rewritten by someone with database access but without
 * the service's keys. So the keys come from the auditor (`--jwks`, or the data dir's key files), never from the
 * store's `signing_keys`; and a non-empty log without a signed checkpoint is not valid here: nothing signed would tie
 * its bytes to the service (the server's `/verify` signs one on demand; an offline verifier cannot).
 */
import { CommanderError, type Command } from 'commander';
import { AarError } from '@aar/core';
import type { AppContext } from '../app-context.ts';
import { systemClock } from '../clock.ts';
import { verifyAuditLog, type AuditVerification } from '../audit/verify-audit-log.ts';
import { configFrom, withConfigOptions, type ConfigFlags } from './config-options.ts';
import { openReadOnlyStore, type ReadOnlyStore } from './read-only-store.ts';
import { trustedAuditKeys, type TrustedKeys } from './trusted-audit-keys.ts';

interface VerifyAuditFlags extends ConfigFlags {
  jwks?: string;
  jwksCache?: string;
  origin?: string;
  json?: boolean;
}

/** What the command answers: GET /v1/audit/verify's members, plus what an offline auditor needs to know. */
export interface OfflineAuditVerification extends Omit<AuditVerification, 'checkpoint' | 'mark' | 'from' | 'failure'> {
  failure?: AuditVerification['failure'] | 'checkpoint_missing';
  /** the audit id of `first_invalid_index` */
  first_invalid_audit_id?: string;
  checkpoint: { size: number; root_hash: string; origin: string; timestamp: string; key_id: string } | null;
  /** entries after the latest checkpoint: chained and checked, but not yet under a signature */
  uncovered_entries: number;
  store: string;
  trusted_keys: { source: string; key_ids: string[] };
}

export function registerVerifyAuditCommand(program: Command): void {
  withConfigOptions(
    program
      .command('verify-audit')
      .description(
        'verify the audit log offline from its store (read-only): chain, Merkle tree, stored records, and the latest ' +
          'checkpoint against keys you trust',
      ),
  )
    .option(
      '--jwks <url|file>',
      "the keys to trust: a JWKS file, a JWKS URL or the issuer URL (default: the data dir's own key files)",
    )
    .option('--jwks-cache <file>', 'where a fetched JWKS is cached (default ~/.cache/aar/jwks-<hash>.json)')
    .option('--origin <origin>', 'the log the checkpoint must name, e.g. `aar.example.com/audit`')
    .option('--json', 'print the result as JSON')
    // usage errors (unknown flag, missing value) exit 2, like an unreadable store
    .exitOverride((error) => {
      throw error.exitCode === 0 ? error : new CommanderError(2, error.code, error.message);
    })
    .action(async (flags: VerifyAuditFlags) => {
      const result = await verifyAuditOffline(flags);
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : describe(result));
      if (!result.valid) throw new CommanderError(1, 'aar.auditInvalid', 'the audit log does not verify');
    });
}

export async function verifyAuditOffline(flags: VerifyAuditFlags): Promise<OfflineAuditVerification> {
  const config = configFrom(flags);
  const trusted = await trustedAuditKeys({ jwks: flags.jwks, jwksCache: flags.jwksCache, dataDir: config.dataDir });
  const store = await openReadOnlyStore(config);
  try {
    const v = await verifyAuditLog(offlineContext(store, trusted, config), { storeMark: false });
    return await offlineAnswer(store, trusted, v, flags.origin);
  } catch (error) {
    if (error instanceof AarError) throw error;
    throw new AarError(
      'invalid_request',
      `cannot read the store at \`${store.location}\`: ${(error as Error).message}`,
    );
  } finally {
    await store.close();
  }
}

async function offlineAnswer(
  store: ReadOnlyStore,
  trusted: TrustedKeys,
  v: AuditVerification,
  origin: string | undefined,
): Promise<OfflineAuditVerification> {
  const { checkpoint, mark: _mark, from: _from, ...rest } = v;
  const answer: OfflineAuditVerification = {
    ...rest,
    checkpoint: checkpoint
      ? {
          size: checkpoint.size,
          root_hash: checkpoint.root_hash,
          origin: checkpoint.origin,
          timestamp: checkpoint.timestamp,
          key_id: checkpoint.signature.key_id,
        }
      : null,
    uncovered_entries: v.size - (checkpoint?.size ?? 0),
    store: store.location,
    trusted_keys: { source: trusted.source, key_ids: trusted.jwks.keys.map((k) => k.kid ?? '') },
  };
  if (answer.valid && v.size > 0 && !checkpoint) {
    Object.assign(answer, { valid: false, failure: 'checkpoint_missing' });
  } else if (answer.valid && checkpoint && origin !== undefined && checkpoint.origin !== origin) {
    Object.assign(answer, { valid: false, failure: 'checkpoint_origin_mismatch', detail: checkpoint.origin });
  }
  if (v.first_invalid_index !== undefined) {
    const row = await store.db
      .selectFrom('audit_entries')
      .select('audit_id')
      .where('idx', '=', v.first_invalid_index)
      .executeTakeFirst();
    if (row) answer.first_invalid_audit_id = row.audit_id;
  }
  return answer;
}

/**
 * The context verifyAuditLog runs on: the read-only store, the auditor's keys as the JWKS, the issuer URL (unused
 * when the store holds its origin, as every store since migration 0007 does) and the clock. Anything else it might
 * reach for (the write queue, a signing key) throws: an offline verification never writes or signs.
 */
function offlineContext(store: ReadOnlyStore, trusted: TrustedKeys, config: AppContext['config']): AppContext {
  return guarded('ctx', {
    config,
    clock: systemClock,
    store: guarded('ctx.store', { db: store.db, dialect: store.dialect, location: store.location }),
    keys: guarded('ctx.keys', { jwks: async () => trusted.jwks }),
  }) as unknown as AppContext;
}

function guarded<T extends object>(name: string, target: T): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      if (typeof property === 'symbol' || property in object) return Reflect.get(object, property, receiver);
      throw new Error(`offline audit verification does not provide ${name}.${property}`);
    },
  });
}

function describe(r: OfflineAuditVerification): string {
  const lines = [`audit log at ${r.store}: ${r.size} entries, root ${r.root_hash}`];
  lines.push(`trusted keys (${r.trusted_keys.source}): ${r.trusted_keys.key_ids.join(', ')}`);
  if (r.checkpoint) {
    const c = r.checkpoint;
    lines.push(`latest checkpoint: size ${c.size}, origin ${c.origin}, signed ${c.timestamp} by ${c.key_id}`);
    if (r.uncovered_entries > 0) lines.push(`  ${r.uncovered_entries} entries after it, not yet under a signature`);
  } else lines.push('latest checkpoint: none');
  if (r.valid) {
    lines.push(`valid: all ${r.checked} entries and their records verify`);
  } else {
    const at =
      r.first_invalid_index === undefined
        ? ''
        : ` at entry ${r.first_invalid_index}${r.first_invalid_audit_id ? ` (${r.first_invalid_audit_id})` : ''}`;
    const record = r.record ? `, record ${r.record.table} ${r.record.id}` : '';
    const detail = r.detail ? `, ${r.detail}` : '';
    lines.push(`INVALID: ${r.failure}${at}${record}${detail}; ${r.checked} entries verified before it`);
  }
  return `${lines.join('\n')}\n`;
}
