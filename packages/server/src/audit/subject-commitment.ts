/**
 * What the write-once chain holds instead of a person's, organisation's, agent's or card token's id: a salted
 * commitment `ns:commitment:<base64url SHA-256(salt || id)>`, one random salt per subject. Right to erasure deletes
 * the salt: the commitments stay in the chain (which keeps verifying) but can no longer be linked to anyone.
 * Ids of grants, decisions, credentials, keys and merchants are not personal data and stay as they are.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database } from '../store/index.ts';

const PERSONAL_PREFIXES = ['ns:entity:', 'ns:card_token:', 'ns:credential:card-token:'];

export function isPersonalRef(ref: string): boolean {
  return PERSONAL_PREFIXES.some((p) => ref.startsWith(p));
}

export async function subjectRefForAudit(trx: Transaction<Database>, ref: string, nowIso: string): Promise<string> {
  if (!isPersonalRef(ref)) return ref;
  const canonical = ref.startsWith('ns:credential:card-token:')
    ? `ns:card_token:${ref.slice('ns:credential:card-token:'.length)}`
    : ref;
  let row = await trx
    .selectFrom('subject_salts')
    .select('salt')
    .where('subject_ref', '=', canonical)
    .executeTakeFirst();
  if (!row) {
    const salt = randomBytes(32).toString('base64url');
    await trx
      .insertInto('subject_salts')
      .values({ subject_ref: canonical, salt, created_at: nowIso })
      .onConflict((oc) => oc.column('subject_ref').doNothing())
      .execute();
    row = await trx
      .selectFrom('subject_salts')
      .select('salt')
      .where('subject_ref', '=', canonical)
      .executeTakeFirstOrThrow();
  }
  return `ns:commitment:${createHash('sha256').update(Buffer.from(row.salt, 'base64url')).update(canonical, 'utf8').digest('base64url')}`;
}
