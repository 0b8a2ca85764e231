/**
 * `POST /v1/search` (preview, opt-in `search`): runs the search, answers the items, and signs and stores an
 * `ns.search_result.v1` that says what was asked (the body exactly as received, and its digest), by whom (token,
 * role, principal, agent), when, and exactly what came back: each result's kind, id and the `sha-256:` digest of the
 * RFC 8785 bytes of the item as answered, and a digest over that list (docs/search.md).
 * INVARIANT: the items answered are the items digested (one array, digested then sent), so an agent holding an item
 * proves it was shown by recomputing its digest and checking the service's signature over the stored result.
 * The stored result holds digests, not the items: a memory record's content never outlives its retention here.
 * Written through the write queue in one transaction; a refused request (validation, visibility) writes nothing.
 * Read-only on everything else: no event, no audit entry (a search changes no authority; the signature and the
 * write-once row are its record).
 */
import { canonicalJson, signDocument, type DocumentSignature } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import {
  searchDecisionSummaries,
  searchEvidencePacks,
  searchListingItems,
  textDigest,
  type KindAnswer,
} from './search-kinds.ts';
import { searchMemoryRecords } from './search-memory.ts';
import { planSearch, type SearchBody, type SearchKind, type SearchPlan } from './search-request.ts';

export const SEARCH_RESULT_SCHEMA = 'ns.search_result.v1';

export interface SearchResultEntry {
  kind: SearchKind;
  id: string;
  /** `sha-256:` of the RFC 8785 bytes of the item as answered */
  digest: string;
}

export interface SearchResultDocument {
  schema_version: typeof SEARCH_RESULT_SCHEMA;
  preview: true;
  search_result_id: string;
  issuer: string;
  searched_at: string;
  searched_by: {
    token_id: string;
    role: string;
    principal_entity_id: string | null;
    agent_entity_id: string | null;
  };
  /** the request body exactly as received */
  request: Record<string, unknown>;
  request_digest: string;
  /** the confinement the service applied (who sees what) */
  visibility: { principal_entity_id: string | null; agent_entity_id: string | null };
  counts: Array<{ kind: SearchKind; returned: number; more: boolean }>;
  results: SearchResultEntry[];
  /** `sha-256:` of the RFC 8785 bytes of `results` */
  results_digest: string;
  signature: DocumentSignature;
}

export interface SearchAnswer {
  search_result: SearchResultDocument;
  /** the items, in the order of `search_result.results` */
  items: Array<{ kind: SearchKind; id: string; item: Record<string, unknown> }>;
}

export async function runSearch(ctx: AppContext, credential: Credential, body: SearchBody): Promise<SearchAnswer> {
  const request = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  const plan = planSearch(body, credential, ctx.config);
  const answers: Array<{ kind: SearchKind; answer: KindAnswer }> = [];
  for (const kind of plan.kinds) answers.push({ kind, answer: await searchKind(ctx, kind, plan, body.query) });
  const items = answers.flatMap(({ kind, answer }) => answer.items.map((i) => ({ kind, id: i.id, item: i.item })));
  const results = items.map((i) => ({ kind: i.kind, id: i.id, digest: textDigest(canonicalJson(i.item)) }));
  const now = ctx.clock.now().toISOString();
  const unsigned = {
    schema_version: SEARCH_RESULT_SCHEMA,
    preview: true as const,
    search_result_id: `ns:search_result:${ctx.newUuid()}`,
    issuer: ctx.config.issuerUrl,
    searched_at: now,
    searched_by: {
      token_id: credential.token_id,
      role: credential.role,
      principal_entity_id: credential.role === 'principal' ? (credential.principal_entity_id ?? null) : null,
      agent_entity_id: plan.agent_entity_id ?? null,
    },
    request,
    request_digest: textDigest(canonicalJson(request)),
    visibility: {
      principal_entity_id: plan.principal_entity_id ?? null,
      agent_entity_id: plan.agent_entity_id ?? null,
    },
    counts: answers.map(({ kind, answer }) => ({ kind, returned: answer.items.length, more: answer.more })),
    results,
    results_digest: textDigest(canonicalJson(results)),
  };
  const signed = (await signDocument(unsigned, ctx.keys.current())) as SearchResultDocument;
  const text = canonicalJson(signed);
  await ctx.writer.run(async (trx) => {
    await trx
      .insertInto('search_results')
      .values({
        search_result_id: signed.search_result_id,
        token_id: credential.token_id,
        role: credential.role,
        principal_entity_id: signed.searched_by.principal_entity_id,
        agent_entity_id: signed.searched_by.agent_entity_id,
        digest: textDigest(text),
        document: text,
        created_at: now,
      })
      .execute();
  });
  return { search_result: signed, items };
}

function searchKind(
  ctx: AppContext,
  kind: SearchKind,
  plan: SearchPlan,
  query: string | undefined,
): Promise<KindAnswer> {
  switch (kind) {
    case 'decisions':
      return searchDecisionSummaries(ctx, plan);
    case 'evidence_packs':
      return searchEvidencePacks(ctx, plan);
    case 'memory_records':
      return searchMemoryRecords(ctx, plan);
    case 'listings':
      return searchListingItems(ctx, plan, query);
  }
}
