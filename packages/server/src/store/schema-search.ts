/** The tables of signed search results (migration 0027), part of `Database` (schema.ts). Conventions as in schema.ts. */
import type { Generated } from 'kysely';

/** One signed `ns.search_result.v1` (services/search); write-once. */
export interface SearchResultsTable {
  seq: Generated<number>;
  /** `ns:search_result:<uuid>` */
  search_result_id: string;
  /** the credential that searched (`ns:token:<uuid>`) */
  token_id: string;
  role: string;
  /** the principal of a principal credential; null for the other roles */
  principal_entity_id: string | null;
  /** the agent the search was made for, when the caller named one */
  agent_entity_id: string | null;
  /** `sha-256:` + base64url of SHA-256(document) */
  digest: string;
  /** the signed result's RFC 8785 text */
  document: string;
  created_at: string;
}

export interface SearchTables {
  search_results: SearchResultsTable;
}
