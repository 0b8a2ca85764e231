/**
 * `POST /v1/grants/{id}/revoke` (CONTRACT section 5, SPEC "States"): revokes the grant and its whole subtree in ONE
 * write-queue unit, so the answer is given only once every revocation, every `ns.authority.revoked` envelope (one per
 * revoked grant) and the audit entry of the operation are committed together. No grant row is rewritten: each
 * revoked grant gets a narrow `grant_revocations` row (migration 0005), and the database writes rows and events
 * itself (write-revocation-cascade.ts): a 100k-grant cascade takes about a third of a second on the embedded default
 * and under a second on PostgreSQL (bench/RESULTS.md). The grant-version bump inside the same transaction makes every instance's cached chains stale
 * at commit (and NOTIFYs them on PostgreSQL).
 *
 * Who may revoke (CONTRACT section 5 and issue 4): an admin (`admin_revoked_authority`), or a principal credential
 * bound to the grant's principal (`principal_revoked_authority`) — "its own principal's grants and nothing else".
 * An intermediary that delegated further cannot revoke through its own credential: the principal or an admin does.
 * Anyone else: 403, and nothing changes.
 * Revoking a grant that is already revoked answers 200 with `already_revoked: true`, a count of 0, and writes
 * nothing (idempotent, no new event).
 */
import { AarError, mintedId, parseMintedId } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { actorOf } from '../actor-of.ts';
import { grantNotFound } from './create-grant.ts';
import { deferredCheckpoint } from './deferred-checkpoint.ts';
import { bumpGrantVersion } from './grant-version.ts';
import { loadAncestry } from './load-ancestry.ts';
import { writeRevocationCascade } from './write-revocation-cascade.ts';

/** From this many grants on, SQLite's WAL checkpoint runs after the answer (deferred-checkpoint.ts). */
const LARGE_CASCADE = 5_000;

export type RevocationReason = 'principal_revoked_authority' | 'admin_revoked_authority';

export interface RevokeGrantResult {
  grant_id: string;
  state: 'revoked';
  /** grants this call revoked: the grant and its active descendants; 0 when it was revoked already */
  revoked_count: number;
  already_revoked: boolean;
  revoked_at: string;
  reason_code: RevocationReason | null;
  /** the audit entry of the operation (null when nothing was revoked) */
  audit_ref: string | null;
  /** from the call to the commit of everything above, milliseconds */
  elapsed_ms: number;
}

export async function revokeGrant(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
): Promise<RevokeGrantResult> {
  const started = performance.now();
  const id = parseMintedId('authority:grant', rawId, '/params/id');
  const checkpoint = deferredCheckpoint(ctx.store.dialect === 'sqlite');
  const result = await ctx.writer
    .run(async (trx) => {
      const ancestry = await loadAncestry(trx, id);
      if (!ancestry) throw grantNotFound(id);
      const grant = ancestry[ancestry.length - 1]!;
      const reason = revocationRight(credential, grant.principal_entity_id);
      if (grant.state === 'revoked') {
        return {
          revokedCount: 0,
          already: true,
          revokedAt: grant.revoked_at ?? grant.updated_at,
          reason: null,
          auditRef: null,
        };
      }
      const now = ctx.clock.now().toISOString();
      const auditRef = mintedId('audit', ctx.newUuid());
      const revoked = await writeRevocationCascade(trx, ctx, {
        root: id,
        now,
        audit_ref: auditRef,
        reason_code: reason,
        actor_entity_id: actorOf(credential),
      });
      await bumpGrantVersion(trx, ctx.store.dialect);
      // the automatic checkpoint is decided at this batch's commit: a large cascade moves it after its answer
      if (revoked >= LARGE_CASCADE) await checkpoint.suspend(trx);
      return { revokedCount: revoked, already: false, revokedAt: now, reason, auditRef };
    })
    .finally(() => checkpoint.restore(ctx.store.db));
  return {
    grant_id: id,
    state: 'revoked',
    revoked_count: result.revokedCount,
    already_revoked: result.already,
    revoked_at: result.revokedAt,
    reason_code: result.reason,
    audit_ref: result.auditRef,
    elapsed_ms: Math.round((performance.now() - started) * 100) / 100,
  };
}

function revocationRight(credential: Credential | null, principalId: string): RevocationReason {
  if (credential === null) throw new AarError('unauthenticated', 'this route needs a credential');
  if (credential.role === 'admin') return 'admin_revoked_authority';
  if (credential.role === 'principal' && credential.principal_entity_id === principalId) {
    return 'principal_revoked_authority';
  }
  throw new AarError('forbidden', `this credential may not revoke grants of principal \`${principalId}\``);
}
