/**
 * How a mandate or allowance is shown (GET /v1/mandates/{id}, GET /v1/allowances/{id}, and the 201 of their POST):
 * the row's facts, its derived state and the grant made from it, read with its revocation (grant-rows.ts).
 * Readers: admin and auditor credentials, and a principal credential for its own principal's mandates.
 */
import { AarError } from '@aar/core';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import type { Database, MandatesTable } from '../../store/index.ts';
import { effectiveGrantRow, selectGrants } from '../grants/grant-rows.ts';
import { grantView, type GrantView } from '../grants/grant-view.ts';
import { parseMandateId } from './mandate-ids.ts';
import { mandateState, type MandateState } from './mandate-state.ts';

export type MandateRow = Selectable<MandatesTable>;

/** What the `constraints` column holds (JSON): the mapped constraints and what the request added to them. */
export interface StoredConstraints {
  /** AP2: the mandate's constraints as mapped (core ap2MandateToScope); ACP: the allowance's terms */
  constraints: unknown[];
  /** AP2: the `payees` of the request, payee id -> merchant id (authorize reads them: named-mandate.ts) */
  payees?: Record<string, string>;
  /** ACP: the allowance's risk signals and metadata, as given */
  risk_signals?: unknown[];
  metadata?: Record<string, string>;
}

interface CommonView {
  digest: string;
  principal_entity_id: string;
  actor_entity_id: string;
  parent_grant_id: string;
  constraints: unknown[];
  checkout_session_id: string | null;
  single_use: boolean;
  expires_at: string | null;
  used_by: string | null;
  state: MandateState;
  created_at: string;
  grant: GrantView;
}

export interface Ap2MandateView extends CommonView {
  mandate_id: string;
  format: 'ap2';
  issuer: string | null;
  payees: Record<string, string>;
}

export interface AllowanceView extends CommonView {
  allowance_id: string;
  format: 'acp';
  vaulted_token_id: string | null;
}

export type MandateView = Ap2MandateView | AllowanceView;

export function mandateView(row: MandateRow, grant: GrantView & { scope: unknown }, state: MandateState): MandateView {
  const stored = JSON.parse(row.constraints) as StoredConstraints;
  const common: CommonView = {
    digest: row.digest,
    principal_entity_id: row.principal_entity_id,
    actor_entity_id: row.actor_entity_id,
    parent_grant_id: row.parent_grant_id,
    constraints: stored.constraints,
    checkout_session_id: row.checkout_session_id,
    single_use: row.single_use === 1,
    expires_at: row.expires_at,
    used_by: row.used_by,
    state,
    created_at: row.created_at,
    grant,
  };
  if (row.format === 'acp') {
    return { allowance_id: row.mandate_id, format: 'acp', ...common, vaulted_token_id: row.vaulted_token_id };
  }
  return { mandate_id: row.mandate_id, format: 'ap2', issuer: row.issuer, ...common, payees: stored.payees ?? {} };
}

/** The mandate row and its grant with the grant's effective state, or undefined. */
export async function loadMandate(
  db: Kysely<Database> | Transaction<Database>,
  mandateId: string,
): Promise<{ row: MandateRow; grant: ReturnType<typeof effectiveGrantRow> } | undefined> {
  const row = await db.selectFrom('mandates').selectAll().where('mandate_id', '=', mandateId).executeTakeFirst();
  if (!row) return undefined;
  const grant = await selectGrants(db).where('grants.grant_id', '=', row.grant_id).executeTakeFirst();
  if (!grant) throw new Error(`mandate ${row.mandate_id} has no grant row`);
  return { row, grant: effectiveGrantRow(grant) };
}

/** GET /v1/mandates/{id} and GET /v1/allowances/{id}. */
export async function getMandate(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
  kind: 'mandate',
): Promise<Ap2MandateView>;
export async function getMandate(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
  kind: 'allowance',
): Promise<AllowanceView>;
export async function getMandate(
  ctx: AppContext,
  credential: Credential | null,
  rawId: string,
  kind: 'mandate' | 'allowance',
): Promise<MandateView> {
  const id = parseMandateId(kind, rawId, '/params/id');
  const found = await loadMandate(ctx.store.db, id);
  if (
    !found ||
    (credential?.role === 'principal' && credential.principal_entity_id !== found.row.principal_entity_id)
  ) {
    // another principal's mandate reads as absent, not forbidden: its existence is not disclosed
    throw new AarError('not_found', `${kind} \`${id}\` does not exist`);
  }
  const now = ctx.clock.now().toISOString();
  return mandateView(found.row, grantView(found.grant), mandateState(found.row, found.grant, now));
}
