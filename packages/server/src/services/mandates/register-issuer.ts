/**
 * `POST /v1/mandate-issuers` (admin; CONTRACT section 21): a trusted AP2 issuer and its keys. The JWKS is given
 * inline or fetched once from `jwks_uri` (fetch-jwks.ts) and stored in the row, which is write-once: the keys a
 * mandate verifies against can only be those registered, and a registration cannot be edited (a second one for the
 * same issuer is 409 `conflict`). The row is committed to by an audit entry (kind `mandate_issuer`, its `audit_id`),
 * which GET /v1/audit/verify checks (audit/record-checks/check-mandates.ts).
 * `GET /v1/mandate-issuers` lists them (admin, auditor).
 */
import { AarError, canonicalJson, fieldError, mintedId } from '@aar/core';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { MandateIssuersTable } from '../../store/index.ts';
import { auditOf } from '../../store/write-queue.ts';
import { duplicateAsConflict } from '../unique-violation.ts';
import { fetchJwks, readJwks, type Jwks } from './fetch-jwks.ts';

export const MANDATE_ISSUER_AUDIT_KIND = 'mandate_issuer';

export interface RegisterIssuerInput {
  issuer: string;
  format: 'ap2';
  jwks?: unknown;
  jwks_uri?: string;
}

export interface IssuerView {
  issuer: string;
  format: 'ap2';
  jwks: Jwks;
  jwks_uri: string | null;
  audit_ref: string;
  created_at: string;
}

/** What the audit entry of a registration commits to: the row without its `audit_id`. */
export function issuerRecord(row: Omit<Selectable<MandateIssuersTable>, 'audit_id'>): Record<string, unknown> {
  return {
    operation: 'register_mandate_issuer',
    issuer: row.issuer,
    format: row.format,
    jwks: row.jwks,
    jwks_uri: row.jwks_uri,
    created_at: row.created_at,
  };
}

export function issuerView(row: Selectable<MandateIssuersTable>): IssuerView {
  return {
    issuer: row.issuer,
    format: row.format,
    jwks: JSON.parse(row.jwks) as Jwks,
    jwks_uri: row.jwks_uri,
    audit_ref: row.audit_id,
    created_at: row.created_at,
  };
}

export async function registerIssuer(
  ctx: AppContext,
  credential: Credential | null,
  input: RegisterIssuerInput,
): Promise<IssuerView> {
  if (credential?.role !== 'admin') throw new AarError('forbidden', 'only an admin credential may register issuers');
  if (!/^[\x21-\x7e]{1,256}$/.test(input.issuer)) {
    throw fieldError(
      'invalid_request',
      '/issuer',
      'must be 1 to 256 visible ascii characters (the `iss` it signs with)',
    );
  }
  if ((input.jwks === undefined) === (input.jwks_uri === undefined)) {
    throw fieldError(
      'invalid_request',
      input.jwks === undefined ? '' : '/jwks_uri',
      'give exactly one of `jwks`, `jwks_uri`',
    );
  }
  const jwks = input.jwks !== undefined ? readJwks(input.jwks, '/jwks') : await fetchJwks(ctx, input.jwks_uri!);
  const now = ctx.clock.now().toISOString();
  const auditId = mintedId('audit', ctx.newUuid());
  const row = {
    issuer: input.issuer,
    format: 'ap2' as const,
    jwks: canonicalJson(jwks),
    jwks_uri: input.jwks_uri ?? null,
    created_at: now,
  };
  try {
    return await ctx.writer.run(async (trx) => {
      const known = await trx
        .selectFrom('mandate_issuers')
        .select('issuer')
        .where('issuer', '=', input.issuer)
        .executeTakeFirst();
      if (known) throw fieldError('conflict', '/issuer', `issuer \`${input.issuer}\` is registered already`);
      await auditOf(trx).append({
        audit_id: auditId,
        kind: MANDATE_ISSUER_AUDIT_KIND,
        subject_ref: input.issuer,
        record: issuerRecord(row),
        occurred_at: now,
      });
      const stored = await trx
        .insertInto('mandate_issuers')
        .values({ ...row, audit_id: auditId })
        .returningAll()
        .executeTakeFirstOrThrow();
      return issuerView(stored);
    });
  } catch (error) {
    throw duplicateAsConflict(error, `issuer \`${input.issuer}\``, '/issuer');
  }
}

export async function listIssuers(ctx: AppContext): Promise<IssuerView[]> {
  const rows = await ctx.store.db.selectFrom('mandate_issuers').selectAll().orderBy('issuer').execute();
  return rows.map(issuerView);
}

/** The configured issuers in the verifier's terms (core Ap2TrustedIssuer). */
export async function trustedIssuers(
  db: AppContext['store']['db'],
): Promise<Array<{ issuer: string; keys: Jwks['keys'] }>> {
  const rows = await db.selectFrom('mandate_issuers').select(['issuer', 'jwks']).where('format', '=', 'ap2').execute();
  return rows.map((r) => ({ issuer: r.issuer, keys: (JSON.parse(r.jwks) as Jwks).keys }));
}
