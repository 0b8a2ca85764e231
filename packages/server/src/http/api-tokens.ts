/**
 * API tokens (CONTRACT section 7): random secrets, stored only as SHA-256 hashes, one role each.
 * A secret is `aar_` + base64url of 32 random bytes (256 bits): unguessable, so an unsalted fast hash is enough;
 * salting or stretching protects low-entropy passwords, not random keys, and would forbid the indexed lookup.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../app-context.ts';
import { createToken } from '../services/tokens/manage-tokens.ts';
import { isUniqueViolation } from '../services/unique-violation.ts';
import type { Role } from '../store/schema.ts';

export const ROLES: readonly Role[] = ['admin', 'runtime', 'principal', 'auditor', 'pep'];
export const TOKEN_PREFIX = 'aar_';

/** The stored form of a secret: SHA-256, lowercase hex. */
export function hashToken(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * AAR_BOOTSTRAP_TOKEN (CONTRACT section 11): on a store without any token, registers the configured secret as an
 * admin token labelled `bootstrap`. Idempotent, and safe when several instances start at once on one database:
 * the unique hash lets exactly one insert win. Returns whether this call inserted it.
 */
export async function ensureBootstrapToken(ctx: AppContext): Promise<boolean> {
  const secret = ctx.config.bootstrapToken;
  if (secret === undefined || secret === '') return false;
  const any = await ctx.store.db.selectFrom('api_tokens').select('token_id').limit(1).executeTakeFirst();
  if (any) return false;
  try {
    await createToken(ctx, null, { role: 'admin', label: 'bootstrap' }, secret);
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false; // another instance registered it first
    throw error;
  }
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
