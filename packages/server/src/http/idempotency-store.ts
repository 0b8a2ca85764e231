/**
 * The `idempotency_keys` table (CONTRACT section 7): one row per (credential, key).
 * INVARIANT: of concurrent first requests with one key exactly one claims it; the primary key decides, on both
 * dialects, through `insert … on conflict do nothing` (no read-then-write race).
 * Bodies are stored base64: byte-exact replay whatever the payload (a JS string with a lone surrogate would not
 * survive a text column).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

export interface IdempotencyScope {
  credentialId: string;
  key: string;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type ClaimResult =
  /** this request owns the key; `claimedAt` identifies the claim when it is completed or released */
  | { kind: 'claimed'; claimedAt: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_flight' }
  | { kind: 'mismatch' };

export interface ClaimOptions extends IdempotencyScope {
  requestHash: string;
  now: Date;
  /** how long an unfinished claim blocks the key: a process that died mid-request frees it after this */
  leaseSeconds: number;
}

export async function claimIdempotencyKey(db: Kysely<Database>, options: ClaimOptions): Promise<ClaimResult> {
  const now = options.now.toISOString();
  // A further round only follows the removal of an expired row, or a release between our insert and our read.
  for (let round = 0; round < 3; round++) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({
        credential_id: options.credentialId,
        idem_key: options.key,
        request_hash: options.requestHash,
        state: 'in_flight',
        response_status: null,
        response_headers: null,
        response_body: null,
        created_at: now,
        expires_at: addSeconds(options.now, options.leaseSeconds),
      })
      .onConflict((oc) => oc.columns(['credential_id', 'idem_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'claimed', claimedAt: now };

    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('credential_id', '=', options.credentialId)
      .where('idem_key', '=', options.key)
      .executeTakeFirst();
    if (!row) continue;
    if (row.expires_at <= now) {
      await db
        .deleteFrom('idempotency_keys')
        .where('credential_id', '=', options.credentialId)
        .where('idem_key', '=', options.key)
        .where('expires_at', '<=', now)
        .execute();
      continue;
    }
    if (row.request_hash !== options.requestHash) return { kind: 'mismatch' };
    if (row.state === 'in_flight') return { kind: 'in_flight' };
    return {
      kind: 'replay',
      response: {
        status: row.response_status ?? 200,
        headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
        body: Buffer.from(row.response_body ?? '', 'base64'),
      },
    };
  }
  throw new Error('idempotency key could not be claimed');
}

export interface CompleteOptions extends IdempotencyScope {
  claimedAt: string;
  response: StoredResponse;
  expiresAt: Date;
}

/** Stores the answer of a claimed request; the key then replays it until `expiresAt`. */
export async function completeIdempotencyKey(db: Kysely<Database>, options: CompleteOptions): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      state: 'done',
      response_status: options.response.status,
      response_headers: JSON.stringify(options.response.headers),
      response_body: options.response.body.toString('base64'),
      expires_at: options.expiresAt.toISOString(),
    })
    .where('credential_id', '=', options.credentialId)
    .where('idem_key', '=', options.key)
    .where('created_at', '=', options.claimedAt)
    .where('state', '=', 'in_flight')
    .execute();
}

/** Forgets a claim whose request failed (5xx, crash), so the client may retry with the same key. */
export async function releaseIdempotencyKey(
  db: Kysely<Database>,
  scope: IdempotencyScope & { claimedAt: string },
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('credential_id', '=', scope.credentialId)
    .where('idem_key', '=', scope.key)
    .where('created_at', '=', scope.claimedAt)
    .where('state', '=', 'in_flight')
    .execute();
}

/** Deletes up to `limit` expired rows; returns how many went. */
export async function sweepExpiredIdempotencyKeys(db: Kysely<Database>, now: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where((eb) =>
      eb(
        eb.refTuple('credential_id', 'idem_key'),
        'in',
        eb
          .selectFrom('idempotency_keys')
          .select(['credential_id', 'idem_key'])
          .where('expires_at', '<=', now.toISOString())
          .limit(limit)
          .$asTuple('credential_id', 'idem_key'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

function addSeconds(date: Date, seconds: number): string {
  return new Date(date.getTime() + seconds * 1000).toISOString();
}
