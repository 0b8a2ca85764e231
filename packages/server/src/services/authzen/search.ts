/**
 * The AuthZEN search endpoints (CONTRACT section 20; AuthZEN 1.0 section 8), where they fit this service:
 * - purchase domain (subject type `agent`, or resource type `purchase`/`instrument`, or a purchase action): what the
 *   grants say. Actions: `purchase.<action>` each active grant of the agent (for `context.principal_entity_id` when
 *   given) covers, narrowed by its `allowed_actions`, not past `valid_until`. Resources (type `instrument`): the card
 *   tokens those grants name. Subjects (type `agent`): the agents holding such a grant for the principal and action.
 *   Advisory: an evaluation still decides (a limit, a merchant or a revocation up the chain may deny).
 * - generic domain: the candidates are the terms of the dictionaries the active generic packs declare that carry a
 *   `subject`, `resource` or `action` attribute of the searched type, each evaluated by the packs exactly as
 *   an evaluation would be (decideAccess); the permitted ones are the results. A search decides nothing and records
 *   nothing: it answers which evaluations would be permitted now.
 * Results are sorted and paged (`page.limit`, default 50, at most 100; `page.token` is the opaque `next_token`).
 */
import {
  actionsCoveredBy,
  AarError,
  decideGeneric,
  dictionarySnapshot,
  fieldError,
  parseEntityId,
  type DictionaryDocument,
  type DictionarySnapshot,
  type PolicySetSnapshot,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { trustedDocument } from '../policy/document-integrity.ts';
import { parseRef } from '../policy/policy-ids.ts';
import { effectiveGrantRow, selectGrants } from '../grants/grant-rows.ts';
import type { GrantLinkVerifier } from '../authorize/grant-link-verifier.ts';
import type { AuthzenAction, AuthzenResource, AuthzenSubject } from './authzen-model.ts';
import { GenericPolicies } from './generic-evaluation.ts';

export interface SearchPage {
  token?: string;
  limit?: number;
}

export interface SearchInput {
  subject: Partial<AuthzenSubject> & { type: string };
  action?: AuthzenAction;
  resource: Partial<AuthzenResource> & { type: string };
  context?: Record<string, unknown>;
  page?: SearchPage;
}

export type SearchKind = 'subject' | 'resource' | 'action';

interface Found {
  results: Array<Record<string, unknown>>;
  page: { next_token: string };
}

const DEFAULT_LIMIT = 50;

export async function search(
  ctx: AppContext,
  verifier: GrantLinkVerifier,
  credential: Credential,
  kind: SearchKind,
  input: SearchInput,
): Promise<Found> {
  const principal = principalOf(credential, input.context);
  const purchase =
    input.subject.type === 'agent' ||
    input.resource.type === 'purchase' ||
    input.resource.type === 'instrument' ||
    (input.action !== undefined &&
      (input.action.name.startsWith('purchase.') || input.action.name.startsWith('ns:capability:')));
  const all = purchase
    ? await purchaseCandidates(ctx, kind, input, principal)
    : await genericResults(ctx, verifier, kind, input, principal);
  return paged(all, input.page);
}

function principalOf(credential: Credential, context: Record<string, unknown> | undefined): string | undefined {
  const named = context?.principal_entity_id;
  const principal =
    named === undefined
      ? undefined
      : parseEntityId(named, '/context/principal_entity_id', ['person', 'organisation']).id;
  if (
    credential.role === 'pep' &&
    credential.principal_entity_id !== null &&
    principal !== credential.principal_entity_id
  ) {
    throw new AarError(
      'forbidden',
      `/context/principal_entity_id: this pep token searches only for \`${credential.principal_entity_id}\``,
      {
        errors: [
          {
            path: '/context/principal_entity_id',
            message: `must be \`${credential.principal_entity_id}\` for this token`,
          },
        ],
      },
    );
  }
  return principal;
}

function agentId(id: string): string {
  return id.startsWith('ns:') ? id : `ns:entity:agent:${id}`;
}

/** The active, unexpired grants matching the search, and the purchase actions each one allows. */
async function purchaseCandidates(
  ctx: AppContext,
  kind: SearchKind,
  input: SearchInput,
  principal: string | undefined,
): Promise<Array<Record<string, unknown>>> {
  let query = selectGrants(ctx.store.db).where('grants.state', '=', 'active');
  if (kind !== 'subject') {
    if (typeof input.subject.id !== 'string') throw fieldError('invalid_request', '/subject/id', 'is required');
    query = query.where('grants.actor_entity_id', '=', agentId(input.subject.id));
  } else if (principal === undefined) {
    throw fieldError(
      'invalid_request',
      '/context/principal_entity_id',
      'is required to search the agents of a principal',
    );
  }
  if (principal !== undefined) query = query.where('grants.principal_entity_id', '=', principal);
  const now = ctx.clock.now().toISOString();
  const grants = (await query.limit(10_000).execute()).map(effectiveGrantRow).flatMap((row) => {
    if (row.state !== 'active') return [];
    const scope = (typeof row.scope === 'string' ? JSON.parse(row.scope) : row.scope) as {
      valid_until?: string;
      allowed_actions?: string[];
    };
    if (scope.valid_until !== undefined && scope.valid_until <= now) return [];
    const actions = actionsCoveredBy(row.capability_id)
      .map((a) => `purchase.${a}`)
      .filter((a) => scope.allowed_actions === undefined || scope.allowed_actions.includes(a));
    return [{ row, actions }];
  });
  const wanted = input.action?.name;
  const covers = (actions: string[]) =>
    wanted === undefined ||
    actions.includes(wanted) ||
    actions.some((a) => `ns:capability:purchase:${a.slice('purchase.'.length)}` === wanted) ||
    (wanted === 'ns:capability:payment_action:card_purchase' && actions.includes('purchase.execute'));
  if (kind === 'action') {
    const names = new Set(grants.flatMap((g) => g.actions));
    return [...names].sort().map((name) => ({ name }));
  }
  if (kind === 'resource') {
    if (input.resource.type !== 'instrument') return [];
    const ids = new Set(grants.filter((g) => covers(g.actions)).map((g) => instrumentOf(g.row.resource_id)));
    return [...ids].sort().map((id) => ({ type: 'instrument', id }));
  }
  if (input.subject.type !== 'agent') return [];
  const ids = new Set(grants.filter((g) => covers(g.actions)).map((g) => g.row.actor_entity_id));
  return [...ids].sort().map((id) => ({ type: 'agent', id }));
}

/** `ns:credential:card-token:<id>` as the instrument id an evaluation names (`ns:card_token:<id>`). */
function instrumentOf(resourceId: string): string {
  const prefix = 'ns:credential:card-token:';
  return resourceId.startsWith(prefix) ? `ns:card_token:${resourceId.slice(prefix.length)}` : resourceId;
}

async function genericResults(
  ctx: AppContext,
  verifier: GrantLinkVerifier,
  kind: SearchKind,
  input: SearchInput,
  principal: string | undefined,
): Promise<Array<Record<string, unknown>>> {
  const version = await verifier.grants.currentVersion();
  const policySet = await new GenericPolicies(ctx, version).of(principal);
  const generic = (policySet?.packs ?? []).filter((p) => p.document.domain === 'generic' && p.mode === 'enforce');
  if (generic.length === 0) return [];
  const terms = await declaredTerms(ctx, generic);
  const searched = kind === 'subject' ? input.subject.type : kind === 'resource' ? input.resource.type : undefined;
  const candidates: Array<Record<string, unknown>> = [];
  for (const term of terms) {
    const value = term[kind];
    if (typeof value !== 'object' || value === null) continue;
    const v = value as Record<string, unknown>;
    if (kind === 'action') {
      if (typeof v.name === 'string') candidates.push({ name: v.name });
    } else if (v.type === searched && typeof v.id === 'string') {
      candidates.push({ type: v.type, id: v.id });
    }
  }
  const docs = generic.map((p) => p.document);
  const dictionaries = (policySet as PolicySetSnapshot).dictionaries;
  const permitted = candidates.filter((candidate) => {
    const request = {
      subject: kind === 'subject' ? { ...input.subject, ...candidate } : input.subject,
      action: kind === 'action' ? candidate : input.action,
      resource: kind === 'resource' ? { ...input.resource, ...candidate } : input.resource,
      context: input.context ?? {},
    };
    return decideGeneric(docs, { request, facts: {} }, dictionaries).decision === 'permit';
  });
  const key = (r: Record<string, unknown>) => JSON.stringify(r);
  const unique = new Map(permitted.map((r) => [key(r), r]));
  return [...unique.values()].sort((a, b) => (key(a) < key(b) ? -1 : 1));
}

/** Every term of every dictionary the packs declare, read whole and checked like any published document. */
async function declaredTerms(
  ctx: AppContext,
  packs: PolicySetSnapshot['packs'],
): Promise<Array<Record<string, unknown>>> {
  const refs = new Map<string, { name: string; version: string }>();
  for (const p of packs) {
    for (const ref of p.document.dictionaries ?? []) {
      const parsed = parseRef('dictionary', ref);
      if (parsed) refs.set(`${parsed.name}@${parsed.version}`, parsed);
    }
  }
  const out: Array<Record<string, unknown>> = [];
  for (const ref of refs.values()) {
    const row = await ctx.store.db
      .selectFrom('dictionaries')
      .select(['name', 'version', 'state', 'document', 'digest'])
      .where('name', '=', ref.name)
      .where('version', '=', ref.version)
      .executeTakeFirst();
    if (!row || row.state !== 'published') continue;
    const snapshot: DictionarySnapshot = dictionarySnapshot(
      await trustedDocument<DictionaryDocument>(ctx, 'dictionary', row),
    );
    for (const code of snapshot.codes) out.push({ code, ...(snapshot.terms[code] as Record<string, unknown>) });
  }
  return out;
}

function paged(all: Array<Record<string, unknown>>, page: SearchPage | undefined): Found {
  const limit = page?.limit ?? DEFAULT_LIMIT;
  let offset = 0;
  if (page?.token !== undefined && page.token !== '') {
    const decoded = /^o([0-9]{1,9})$/.exec(Buffer.from(page.token, 'base64url').toString('utf8'));
    if (!decoded) throw fieldError('invalid_request', '/page/token', 'is not a `next_token` this service gave');
    offset = Number(decoded[1]);
  }
  const results = all.slice(offset, offset + limit);
  const next = offset + limit < all.length ? Buffer.from(`o${offset + limit}`, 'utf8').toString('base64url') : '';
  return { results, page: { next_token: next } };
}
