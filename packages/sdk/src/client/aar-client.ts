/**
 * The HTTP client of the Agent Authority Runtime (CONTRACT sections 7, 11 and 18): one method per route of the
 * service, typed from its OpenAPI document (src/generated/, `npm run sdk:generate`), plus `request()` for anything
 * else. Every call retries on 429 (honouring `Retry-After`), 503 and network errors with exponential backoff and full
 * jitter; every POST carries one Idempotency-Key for all its attempts; `authorize(body, { signer })` signs the exact
 * bytes it sends, again for every attempt. Lists have `…All()` async iterators; the events feed is `events()`.
 */
import type { AuthorityProofBundle } from '@aar/core';
import type { Operations, OperationName } from '../generated/api-types.ts';
import { OPERATIONS } from '../generated/operations.ts';
import type { RequestSigner } from '../request-signer/create-request-signer.ts';
import { createJwksSource, type JwksSource } from '../jwks/create-jwks-source.ts';
import { EventsFeed, type EventEnvelope, type EventsFeedOptions, type EventsPage } from './events-feed.ts';
import { paginate } from './paginate.ts';
import { resolveRetryOptions, type RetryOptions } from './retry-policy.ts';
import type {
  AttestationRequest,
  AttestationVerification,
  BundleAssembly,
  BundlePartName,
  BundleVerificationRequest,
  CertificationAttestation,
  ComplianceProjectionOptions,
  ComplianceProjectionRequest,
  ConformanceFixtureInfo,
  ConformanceRunRetirement,
  ConformanceProfileInfo,
  ConnectorFilters,
  DecisionSearchFilters,
  DecisionStatistics,
  DecisionStatsFilters,
  DecisionSummary,
  FlattenedJws,
  ItemPage,
  ListingRegistration,
  ListingSearchFilters,
  MarketplaceListing,
  OwnCredential,
  SchemaCatalogueEntry,
  SignedBundleVerification,
  SignedDocument,
} from './route-types.ts';
import type {
  Allowance,
  AllowanceCreation,
  AuthorizeMandate,
  Mandate,
  MandateCreation,
  MandateIssuer,
  MandateIssuerRegistration,
  MandateRevocation,
} from './mandate-types.ts';
import { sendRequest, type AarResponse, type QueryValue, type TransportOptions } from './send-request.ts';

export const SDK_VERSION = '1.0.0';

export interface AarClientOptions {
  /** where the service answers, e.g. `https://aar.bank.example` */
  baseUrl: string | URL;
  /** the API token (`aar_…`); sent only as `Authorization: Bearer` */
  token?: string;
  /** default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  retry?: Partial<RetryOptions>;
  /** default `aar-sdk-typescript/<version>` */
  userAgent?: string;
  /** the URL the service rebuilds `@target-uri` from (its AAR_PUBLIC_URL) when it differs from baseUrl */
  publicUrl?: string | URL;
  /** one attempt's time limit in milliseconds (default 30000) */
  timeoutMs?: number;
  /** extra headers on every request */
  headers?: Record<string, string>;
  /** waits between attempts (tests inject a fake one); must reject when `signal` aborts */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** milliseconds since the epoch, to read `Retry-After` dates (default Date.now) */
  now?: () => number;
  /** [0, 1), for the jitter (default Math.random) */
  random?: () => number;
}

export interface CallOptions {
  /** POST: the Idempotency-Key (default a random UUID per call, reused across its retries) */
  idempotencyKey?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface AuthorizeOptions extends CallOptions {
  /** the agent's RFC 9421 signer (createRequestSigner): the body is signed for every attempt */
  signer?: RequestSigner;
}

type Params<N extends OperationName> = Operations[N]['params'];
type Body<N extends OperationName> = Operations[N]['body'];
type Response<N extends OperationName> = Operations[N]['response'];
/** Query values travel as strings; numbers are accepted where the schema wants digits. */
type QueryInput<Q> = { [K in keyof Q]: Q[K] | (Q[K] extends string | undefined ? number : never) };
type Query<N extends OperationName> = QueryInput<Operations[N]['query']>;
type ListQuery<N extends OperationName> = Omit<Query<N>, 'cursor'>;
type Item<N extends OperationName> = Response<N> extends { items: (infer T)[] } ? T : never;

interface CallParts {
  params?: Record<string, string | number>;
  query?: object;
  body?: unknown;
  bodyText?: string;
  sign?: (bodyText: string | undefined) => Promise<Readonly<Record<string, string>>>;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Expands `/v1/entities/{id}`; every value is one path segment (`ns:entity:agent:a` becomes `ns%3Aentity%3A…`). */
export function expandPath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`the path parameter \`${name}\` is required`);
    return encodeURIComponent(String(value));
  });
}

export class AarClient {
  readonly baseUrl: string;
  readonly publicUrl: string;
  readonly #transport: TransportOptions;
  #jwks: JwksSource | undefined;

  constructor(options: AarClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new TypeError('baseUrl must be http(s)');
    if (base.username || base.password) throw new TypeError('baseUrl must not carry credentials');
    this.baseUrl = base.toString().replace(/\/+$/, '');
    this.publicUrl = new URL(options.publicUrl ?? this.baseUrl).toString().replace(/\/+$/, '');
    this.#transport = {
      baseUrl: this.baseUrl,
      token: options.token,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      retry: resolveRetryOptions(options.retry),
      userAgent: options.userAgent ?? `aar-sdk-typescript/${SDK_VERSION}`,
      timeoutMs: options.timeoutMs ?? 30_000,
      headers: { ...options.headers },
      sleep: options.sleep ?? defaultSleep,
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
      newIdempotencyKey: () => globalThis.crypto.randomUUID(),
    };
  }

  /** Any route, as the service answers it: `await client.request('GET', '/v1/entities', { query: { limit: 5 } })`. */
  async request<T = unknown>(
    method: string,
    path: string,
    init: {
      query?: Record<string, QueryValue>;
      body?: unknown;
      responseType?: 'json' | 'text';
    } & CallOptions = {},
  ): Promise<T> {
    return (await this.requestRaw<T>(method, path, init)).body;
  }

  /** `request()` with the status, headers, attempts and Idempotency-Key of the answer. */
  requestRaw<T = unknown>(
    method: string,
    path: string,
    init: { query?: Record<string, QueryValue>; body?: unknown; responseType?: 'json' | 'text' } & CallOptions = {},
  ): Promise<AarResponse<T>> {
    if (!path.startsWith('/')) throw new TypeError('path must start with `/`');
    return sendRequest<T>(this.#transport, {
      method,
      path,
      query: init.query,
      body: init.body,
      headers: init.headers,
      idempotencyKey: init.idempotencyKey,
      signal: init.signal,
      responseType: init.responseType,
    });
  }

  async #call<N extends OperationName>(
    name: N,
    parts: CallParts = {},
    options: CallOptions = {},
  ): Promise<Response<N>> {
    const spec = OPERATIONS[name];
    const response = await sendRequest<Response<N>>(this.#transport, {
      method: spec.method,
      path: expandPath(spec.path, parts.params),
      query: parts.query as Record<string, QueryValue> | undefined,
      body: parts.body,
      bodyText: parts.bodyText,
      sign: parts.sign,
      headers: options.headers,
      idempotencyKey: options.idempotencyKey,
      signal: options.signal,
      responseType: spec.responseType,
    });
    return response.body;
  }

  /**
   * A route not yet in the generated operation table (src/generated/, regenerated from docs/openapi.json): the same
   * transport, retries and Idempotency-Key as every other call.
   */
  async #route<T>(
    method: 'GET' | 'POST',
    template: string,
    parts: { params?: Record<string, string>; query?: object | undefined; body?: unknown },
    options: CallOptions = {},
  ): Promise<T> {
    const response = await sendRequest<T>(this.#transport, {
      method,
      path: expandPath(template, parts.params),
      query: parts.query as Record<string, QueryValue> | undefined,
      body: parts.body,
      headers: options.headers,
      idempotencyKey: options.idempotencyKey,
      signal: options.signal,
    });
    return response.body;
  }

  /** Every item of a list operation, page after page. */
  paginate<N extends PaginatedOperation>(
    name: N,
    query: ListQuery<N> = {} as ListQuery<N>,
    options: CallOptions & { params?: Params<N> } = {},
  ): AsyncGenerator<Item<N>, void, undefined> {
    const { params, ...callOptions } = options;
    return paginate<Item<N>>(
      async (cursor) =>
        (await this.#call(
          name,
          {
            ...(params ? { params: params as unknown as Record<string, string> } : {}),
            query: { ...query, ...(cursor === undefined ? {} : { cursor }) },
          },
          callOptions,
        )) as { items: Item<N>[]; next_cursor: string | null },
    );
  }

  // -- service, keys ------------------------------------------------------------------------------------------------
  getHealth(options?: CallOptions): Promise<Response<'getHealth'>> {
    return this.#call('getHealth', {}, options);
  }
  getMetrics(options?: CallOptions): Promise<Response<'getMetrics'>> {
    return this.#call('getMetrics', {}, options);
  }
  getOpenApiDocument(options?: CallOptions): Promise<Response<'getOpenApiDocument'>> {
    return this.#call('getOpenApiDocument', {}, options);
  }
  getJwks(options?: CallOptions): Promise<Response<'getJwks'>> {
    return this.#call('getJwks', {}, options);
  }
  /** The issuer's JWKS through this client's fetch, fetched once and cached: pass it to every verifier. */
  jwksSource(options: { refetchIntervalSeconds?: number } = {}): JwksSource {
    this.#jwks ??= createJwksSource(`${this.baseUrl}/.well-known/jwks.json`, {
      fetch: this.#transport.fetch,
      now: this.#transport.now,
      ...options,
    });
    return this.#jwks;
  }

  // -- entities -----------------------------------------------------------------------------------------------------
  createEntity(body: Body<'createEntity'>, options?: CallOptions): Promise<Response<'createEntity'>> {
    return this.#call('createEntity', { body }, options);
  }
  listEntities(query?: Query<'listEntities'>, options?: CallOptions): Promise<Response<'listEntities'>> {
    return this.#call('listEntities', { query }, options);
  }
  listEntitiesAll(query?: ListQuery<'listEntities'>, options?: CallOptions) {
    return this.paginate('listEntities', query, options);
  }
  getEntity(id: string, options?: CallOptions): Promise<Response<'getEntity'>> {
    return this.#call('getEntity', { params: { id } }, options);
  }
  /** Tombstones the entity (right to erasure). */
  deleteEntity(id: string, options?: CallOptions): Promise<Response<'deleteEntity'>> {
    return this.#call('deleteEntity', { params: { id } }, options);
  }
  suspendEntity(id: string, options?: CallOptions): Promise<Response<'suspendEntity'>> {
    return this.#call('suspendEntity', { params: { id } }, options);
  }
  activateEntity(id: string, options?: CallOptions): Promise<Response<'activateEntity'>> {
    return this.#call('activateEntity', { params: { id } }, options);
  }

  // -- card tokens --------------------------------------------------------------------------------------------------
  createCardToken(body: Body<'createCardToken'>, options?: CallOptions): Promise<Response<'createCardToken'>> {
    return this.#call('createCardToken', { body }, options);
  }
  listCardTokens(query?: Query<'listCardTokens'>, options?: CallOptions): Promise<Response<'listCardTokens'>> {
    return this.#call('listCardTokens', { query }, options);
  }
  listCardTokensAll(query?: ListQuery<'listCardTokens'>, options?: CallOptions) {
    return this.paginate('listCardTokens', query, options);
  }
  getCardToken(id: string, options?: CallOptions): Promise<Response<'getCardToken'>> {
    return this.#call('getCardToken', { params: { id } }, options);
  }
  suspendCardToken(id: string, options?: CallOptions): Promise<Response<'suspendCardToken'>> {
    return this.#call('suspendCardToken', { params: { id } }, options);
  }
  activateCardToken(id: string, options?: CallOptions): Promise<Response<'activateCardToken'>> {
    return this.#call('activateCardToken', { params: { id } }, options);
  }

  // -- merchants ----------------------------------------------------------------------------------------------------
  createMerchant(body: Body<'createMerchant'>, options?: CallOptions): Promise<Response<'createMerchant'>> {
    return this.#call('createMerchant', { body }, options);
  }
  listMerchants(query?: Query<'listMerchants'>, options?: CallOptions): Promise<Response<'listMerchants'>> {
    return this.#call('listMerchants', { query }, options);
  }
  listMerchantsAll(query?: ListQuery<'listMerchants'>, options?: CallOptions) {
    return this.paginate('listMerchants', query, options);
  }
  getMerchant(id: string, options?: CallOptions): Promise<Response<'getMerchant'>> {
    return this.#call('getMerchant', { params: { id } }, options);
  }

  // -- grants and delegation ----------------------------------------------------------------------------------------
  /** A root grant, or a sub-delegation (`parent_grant_id`; see signDelegationStatement for `delegator_proof`). */
  createGrant(body: Body<'createGrant'>, options?: CallOptions): Promise<Response<'createGrant'>> {
    return this.#call('createGrant', { body }, options);
  }
  listGrants(query?: Query<'listGrants'>, options?: CallOptions): Promise<Response<'listGrants'>> {
    return this.#call('listGrants', { query }, options);
  }
  listGrantsAll(query?: ListQuery<'listGrants'>, options?: CallOptions) {
    return this.paginate('listGrants', query, options);
  }
  getGrant(id: string, options?: CallOptions): Promise<Response<'getGrant'>> {
    return this.#call('getGrant', { params: { id } }, options);
  }
  /** The signed `ns.delegation_chain.v1` from the root to this grant: verify it with verifyDelegationChain. */
  getGrantChain(id: string, options?: CallOptions): Promise<Response<'getGrantChain'>> {
    return this.#call('getGrantChain', { params: { id } }, options);
  }
  getDelegation(id: string, options?: CallOptions): Promise<Response<'getDelegation'>> {
    return this.#call('getDelegation', { params: { id } }, options);
  }
  /** Revokes the grant and every grant delegated from it. */
  revokeGrant(id: string, options?: CallOptions): Promise<Response<'revokeGrant'>> {
    return this.#call('revokeGrant', { params: { id } }, options);
  }

  // -- API tokens ---------------------------------------------------------------------------------------------------
  /** The secret (`token`) is in this answer only. */
  createToken(body: Body<'createToken'>, options?: CallOptions): Promise<Response<'createToken'>> {
    return this.#call('createToken', { body }, options);
  }
  listTokens(query?: Query<'listTokens'>, options?: CallOptions): Promise<Response<'listTokens'>> {
    return this.#call('listTokens', { query }, options);
  }
  listTokensAll(query?: ListQuery<'listTokens'>, options?: CallOptions) {
    return this.paginate('listTokens', query, options);
  }
  revokeToken(id: string, options?: CallOptions): Promise<Response<'revokeToken'>> {
    return this.#call('revokeToken', { params: { id } }, options);
  }
  /** The credential this client authenticates with (id, role, principal); never a secret. */
  getOwnToken(options?: CallOptions): Promise<OwnCredential> {
    return this.#route('GET', '/v1/tokens/self', {}, options);
  }

  // -- runtime ------------------------------------------------------------------------------------------------------
  /**
   * `POST /v1/runtime/authorize`. With `signer`, the body is serialised once and those exact bytes are signed for
   * `publicUrl` + path (RFC 9421) before every attempt. Every decision (deny included) is a 200 answer.
   * `mandate` presents the purchase's mandate (CONTRACT 21): `{ mandate_id }` of a stored mandate or allowance, or
   * `{ presentation }`, the closed AP2 presentation; the request is then decided by that mandate's grant only.
   */
  authorize(
    body: Body<'authorize'> & { mandate?: AuthorizeMandate },
    options: AuthorizeOptions = {},
  ): Promise<Response<'authorize'>> {
    const { signer, ...callOptions } = options;
    const bodyText = JSON.stringify(body);
    const target = `${this.publicUrl}${OPERATIONS.authorize.path}`;
    return this.#call(
      'authorize',
      {
        bodyText,
        ...(signer ? { sign: (text) => signer.sign({ method: 'POST', url: target, body: text ?? '' }) } : {}),
      },
      callOptions,
    );
  }
  /** Settles (`executed`) or releases (`failed`, `refunded`) an allowed purchase's reservation. */
  recordOutcome(body: Body<'recordOutcome'>, options?: CallOptions): Promise<Response<'recordOutcome'>> {
    return this.#call('recordOutcome', { body }, options);
  }
  recordRiskSignal(body: Body<'recordRiskSignal'>, options?: CallOptions): Promise<Response<'recordRiskSignal'>> {
    return this.#call('recordRiskSignal', { body }, options);
  }

  // -- the v1.1 preview set (CONTRACT section 22; each operation `x-preview: true`, may change) ----------------------
  /** The signed `ns.authority_graph.v1` of a principal's delegation tree, with the effective limits on each edge. */
  getPrincipalAuthorityGraph(
    id: string,
    query?: Query<'getPrincipalAuthorityGraph'>,
    options?: CallOptions,
  ): Promise<Response<'getPrincipalAuthorityGraph'>> {
    return this.#call('getPrincipalAuthorityGraph', { params: { id }, query }, options);
  }
  /** Who can spend on a card token, and how much today, through every path. */
  getCardTokenSpenders(
    id: string,
    query?: Query<'getCardTokenSpenders'>,
    options?: CallOptions,
  ): Promise<Response<'getCardTokenSpenders'>> {
    return this.#call('getCardTokenSpenders', { params: { id }, query }, options);
  }
  /** What an agent may do: its effective capabilities with their limits, through every path. */
  getAgentCapabilities(
    id: string,
    query?: Query<'getAgentCapabilities'>,
    options?: CallOptions,
  ): Promise<Response<'getAgentCapabilities'>> {
    return this.#call('getAgentCapabilities', { params: { id }, query }, options);
  }
  /** The delegation paths from a principal (`from`) to an agent (`to`). */
  getAuthorityPaths(query?: Query<'getAuthorityPaths'>, options?: CallOptions): Promise<Response<'getAuthorityPaths'>> {
    return this.#call('getAuthorityPaths', { query }, options);
  }
  /** Everything revoking the grant would cut (grants, mandates, agents, card tokens), without revoking it. */
  getGrantBlastRadius(
    id: string,
    query?: Query<'getGrantBlastRadius'>,
    options?: CallOptions,
  ): Promise<Response<'getGrantBlastRadius'>> {
    return this.#call('getGrantBlastRadius', { params: { id }, query }, options);
  }
  /** The payload artefacts of a decision (`policy_decision_id`). */
  listPayloadArtefacts(
    query?: Query<'listPayloadArtefacts'>,
    options?: CallOptions,
  ): Promise<Response<'listPayloadArtefacts'>> {
    return this.#call('listPayloadArtefacts', { query }, options);
  }
  /** Presents a payload an agent is about to execute by its digest: a signed `verified` or `rejected` artefact. */
  createPayloadArtefact(
    body: Body<'createPayloadArtefact'>,
    options?: CallOptions,
  ): Promise<Response<'createPayloadArtefact'>> {
    return this.#call('createPayloadArtefact', { body }, options);
  }
  /** Executes a verified artefact once, settling (`executed`) or releasing (`failed`) its decision's reservation. */
  executePayloadArtefact(
    id: string,
    body: Body<'executePayloadArtefact'>,
    options?: CallOptions,
  ): Promise<Response<'executePayloadArtefact'>> {
    return this.#call('executePayloadArtefact', { params: { id }, body }, options);
  }
  /** One signed `ns.payload_artefact.v1`. */
  getPayloadArtefact(id: string, options?: CallOptions): Promise<Response<'getPayloadArtefact'>> {
    return this.#call('getPayloadArtefact', { params: { id } }, options);
  }
  /** Opt-in (`memory.read`): memory records, newest first; a principal credential sees its own. */
  listMemoryRecords(query?: Query<'listMemoryRecords'>, options?: CallOptions): Promise<Response<'listMemoryRecords'>> {
    return this.#call('listMemoryRecords', { query }, options);
  }
  /** Opt-in (`memory.write`): an agent's memory record under its grant; pass the agent's `signer` (RFC 9421). */
  writeMemoryRecord(
    body: Body<'writeMemoryRecord'>,
    options: AuthorizeOptions = {},
  ): Promise<Response<'writeMemoryRecord'>> {
    const { signer, ...callOptions } = options;
    const bodyText = JSON.stringify(body);
    const target = `${this.publicUrl}${OPERATIONS.writeMemoryRecord.path}`;
    return this.#call(
      'writeMemoryRecord',
      {
        bodyText,
        ...(signer ? { sign: (text) => signer.sign({ method: 'POST', url: target, body: text ?? '' }) } : {}),
      },
      callOptions,
    );
  }
  /** Opt-in (`memory.read`): one record, its signature and content digest checked by the service on read. */
  getMemoryRecord(id: string, options?: CallOptions): Promise<Response<'getMemoryRecord'>> {
    return this.#call('getMemoryRecord', { params: { id } }, options);
  }
  /** Opt-in (`memory.write`, the principal): erases the content; a chained tombstone stays. */
  eraseMemoryRecord(id: string, options?: CallOptions): Promise<Response<'eraseMemoryRecord'>> {
    return this.#call('eraseMemoryRecord', { params: { id } }, options);
  }
  /** Opt-in (`memory.read`): a principal's tombstone chain, in order. */
  listMemoryTombstones(
    query?: Query<'listMemoryTombstones'>,
    options?: CallOptions,
  ): Promise<Response<'listMemoryTombstones'>> {
    return this.#call('listMemoryTombstones', { query }, options);
  }
  /** Opt-in (`search.read`): a search whose request and results come back signed (`ns.search_result.v1`). */
  createSearch(body: Body<'createSearch'>, options?: CallOptions): Promise<Response<'createSearch'>> {
    return this.#call('createSearch', { body }, options);
  }
  /** Opt-in (`search.read`): a stored signed search result, byte for byte. */
  getSearchResult(id: string, options?: CallOptions): Promise<Response<'getSearchResult'>> {
    return this.#call('getSearchResult', { params: { id } }, options);
  }
  /** Opt-in (`reports.read`): the signed data-flow graph of a principal (`ns.data_flow_graph.v1`). */
  getDataFlowGraph(principal_entity_id: string, options?: CallOptions): Promise<Response<'getDataFlowGraph'>> {
    return this.#call('getDataFlowGraph', { params: { principal_entity_id } }, options);
  }
  /** The cross-rule-pack taxonomy's term tree, with how many rules and controls point at each term. */
  getTaxonomy(options?: CallOptions): Promise<Response<'getTaxonomy'>> {
    return this.#call('getTaxonomy', {}, options);
  }
  /** The rules and compliance controls that implement a taxonomy term (narrower terms included by default). */
  getTaxonomyTerm(
    term: string,
    query?: Query<'getTaxonomyTerm'>,
    options?: CallOptions,
  ): Promise<Response<'getTaxonomyTerm'>> {
    return this.#call('getTaxonomyTerm', { params: { term }, query }, options);
  }
  /** Opt-in (`reports.read`): the deployment's report schedules. */
  listReportSchedules(
    query?: Query<'listReportSchedules'>,
    options?: CallOptions,
  ): Promise<Response<'listReportSchedules'>> {
    return this.#call('listReportSchedules', { query }, options);
  }
  /** Opt-in (`reports.write`): a report schedule (at most once an hour). */
  createReportSchedule(
    body: Body<'createReportSchedule'>,
    options?: CallOptions,
  ): Promise<Response<'createReportSchedule'>> {
    return this.#call('createReportSchedule', { body }, options);
  }
  /** Opt-in (`reports.read`): one report schedule. */
  getReportSchedule(id: string, options?: CallOptions): Promise<Response<'getReportSchedule'>> {
    return this.#call('getReportSchedule', { params: { id } }, options);
  }
  /** Opt-in (`reports.write`): stops a schedule; its reports stay. */
  deleteReportSchedule(id: string, options?: CallOptions): Promise<Response<'deleteReportSchedule'>> {
    return this.#call('deleteReportSchedule', { params: { id } }, options);
  }
  /** Opt-in (`reports.read`): generated reports, newest first. */
  listReports(query?: Query<'listReports'>, options?: CallOptions): Promise<Response<'listReports'>> {
    return this.#call('listReports', { query }, options);
  }
  /** Opt-in (`reports.write`): a signed compliance report over a past period, now. */
  createReport(body: Body<'createReport'>, options?: CallOptions): Promise<Response<'createReport'>> {
    return this.#call('createReport', { body }, options);
  }
  /** Opt-in (`reports.read`): the signed `ns.compliance_report.v1`, or OSCAL with `format: 'oscal'`. */
  getReport(id: string, query?: Query<'getReport'>, options?: CallOptions): Promise<Response<'getReport'>> {
    return this.#call('getReport', { params: { id }, query }, options);
  }
  /** Registers an agent's metadata attestation, signed with the agent's own key. */
  attestAgentMetadata(
    id: string,
    body: Body<'attestAgentMetadata'>,
    options?: CallOptions,
  ): Promise<Response<'attestAgentMetadata'>> {
    return this.#call('attestAgentMetadata', { params: { id }, body }, options);
  }
  /** The agent's current metadata attestation. */
  getAgentMetadataAttestation(id: string, options?: CallOptions): Promise<Response<'getAgentMetadataAttestation'>> {
    return this.#call('getAgentMetadataAttestation', { params: { id } }, options);
  }

  // -- mandates and allowances (CONTRACT section 21) ------------------------------------------------------------------
  /** Admin: trusts an AP2 issuer; a mandate's issuer key comes from there only (`jwks` inline or `jwks_uri`). */
  createMandateIssuer(body: MandateIssuerRegistration, options?: CallOptions): Promise<MandateIssuer> {
    return this.#route('POST', '/v1/mandate-issuers', { body }, options);
  }
  /** Admin or auditor: every registered issuer with its keys, in issuer order. */
  listMandateIssuers(options?: CallOptions): Promise<{ items: MandateIssuer[] }> {
    return this.#route('GET', '/v1/mandate-issuers', {}, options);
  }
  /**
   * An AP2 mandate presentation becomes a grant delegated under `parent_grant_id`. Refused: 422 `mandate_invalid`,
   * whose `errors[]` (AarApiError.errors) name each fault's `path` and `code`.
   */
  createMandate(body: MandateCreation, options?: CallOptions): Promise<Mandate> {
    return this.#route('POST', '/v1/mandates', { body }, options);
  }
  getMandate(id: string, options?: CallOptions): Promise<Mandate> {
    return this.#route('GET', '/v1/mandates/{id}', { params: { id } }, options);
  }
  /** Revokes the mandate's grant (and, through the cascade, every grant under it). */
  revokeMandate(id: string, options?: CallOptions): Promise<MandateRevocation> {
    return this.#route('POST', '/v1/mandates/{id}/revoke', { params: { id } }, options);
  }
  /** An ACP `delegate_payment` allowance becomes a one-use grant bound to its checkout session; never send a card. */
  createAllowance(body: AllowanceCreation, options?: CallOptions): Promise<Allowance> {
    return this.#route('POST', '/v1/allowances', { body }, options);
  }
  getAllowance(id: string, options?: CallOptions): Promise<Allowance> {
    return this.#route('GET', '/v1/allowances/{id}', { params: { id } }, options);
  }
  /** Revokes the allowance's grant (idempotent). */
  revokeAllowance(id: string, options?: CallOptions): Promise<MandateRevocation> {
    return this.#route('POST', '/v1/allowances/{id}/revoke', { params: { id } }, options);
  }

  // -- decisions, approvals, evidence -------------------------------------------------------------------------------
  getDecision(id: string, options?: CallOptions): Promise<Response<'getDecision'>> {
    return this.#call('getDecision', { params: { id } }, options);
  }
  getDecisionMap(id: string, options?: CallOptions): Promise<Response<'getDecisionMap'>> {
    return this.#call('getDecisionMap', { params: { id } }, options);
  }
  /** Decision summaries, newest first (a principal credential sees its own principal's only). */
  searchDecisions(query?: DecisionSearchFilters, options?: CallOptions): Promise<ItemPage<DecisionSummary>> {
    return this.#route('GET', '/v1/decisions', { query }, options);
  }
  searchDecisionsAll(query: Omit<DecisionSearchFilters, 'cursor'> = {}, options?: CallOptions) {
    return paginate<DecisionSummary>((cursor) =>
      this.searchDecisions({ ...query, ...(cursor === undefined ? {} : { cursor }) }, options),
    );
  }
  /** Counts per reason and per UTC hour or day, under the search's filters. */
  getDecisionStats(query?: DecisionStatsFilters, options?: CallOptions): Promise<DecisionStatistics> {
    return this.#route('GET', '/v1/decisions/stats', { query }, options);
  }
  listApprovals(query?: Query<'listApprovals'>, options?: CallOptions): Promise<Response<'listApprovals'>> {
    return this.#call('listApprovals', { query }, options);
  }
  listApprovalsAll(query?: ListQuery<'listApprovals'>, options?: CallOptions) {
    return this.paginate('listApprovals', query, options);
  }
  getApproval(id: string, options?: CallOptions): Promise<Response<'getApproval'>> {
    return this.#call('getApproval', { params: { id } }, options);
  }
  decideApproval(id: string, body: Body<'decideApproval'>, options?: CallOptions): Promise<Response<'decideApproval'>> {
    return this.#call('decideApproval', { params: { id }, body }, options);
  }
  /** The signed evidence pack (`ns:evidence-pack:<uuid>`, a decision's `evidence_refs`): verify it offline. */
  getEvidencePack(id: string, options?: CallOptions): Promise<Response<'getEvidencePack'>> {
    return this.#call('getEvidencePack', { params: { id } }, options);
  }
  /** The service's own verification; verifyEvidencePack() is the offline one, which trusts only the JWKS. */
  verifyEvidencePackOnline(
    body: Body<'verifyEvidencePackOnline'>,
    options?: CallOptions,
  ): Promise<Response<'verifyEvidencePackOnline'>> {
    return this.#call('verifyEvidencePackOnline', { body }, options);
  }

  // -- reference data -----------------------------------------------------------------------------------------------
  listCapabilities(options?: CallOptions): Promise<Response<'listCapabilities'>> {
    return this.#call('listCapabilities', {}, options);
  }
  getCapability(id: string, options?: CallOptions): Promise<Response<'getCapability'>> {
    return this.#call('getCapability', { params: { id } }, options);
  }
  getScope(id: string, options?: CallOptions): Promise<Response<'getScope'>> {
    return this.#call('getScope', { params: { id } }, options);
  }
  listStates(options?: CallOptions): Promise<Response<'listStates'>> {
    return this.#call('listStates', {}, options);
  }
  getState(id: string, options?: CallOptions): Promise<Response<'getState'>> {
    return this.#call('getState', { params: { id } }, options);
  }
  listPolicies(options?: CallOptions): Promise<Response<'listPolicies'>> {
    return this.#call('listPolicies', {}, options);
  }
  getPolicy(id: string, options?: CallOptions): Promise<Response<'getPolicy'>> {
    return this.#call('getPolicy', { params: { id } }, options);
  }

  // -- events -------------------------------------------------------------------------------------------------------
  listEvents(query?: Query<'listEvents'>, options?: CallOptions): Promise<Response<'listEvents'>> {
    return this.#call('listEvents', { query }, options);
  }
  /**
   * The events feed as an async iterator: `for await (const e of feed)`; `feed.cursor` is where to resume
   * (pass it as `after`). `after` also takes an event id.
   */
  events(options: EventsFeedOptions = {}): EventsFeed {
    const { eventType, limit } = options;
    return new EventsFeed(
      async (after, pageSignal) =>
        (await this.#call(
          'listEvents',
          {
            query: {
              ...(after === undefined ? {} : { after }),
              ...(eventType === undefined ? {} : { event_type: eventType }),
              ...(limit === undefined ? {} : { limit }),
            },
          },
          pageSignal ? { signal: pageSignal } : {},
        )) as unknown as EventsPage,
      options,
      this.#transport.sleep,
    );
  }
  listEventTypes(query?: Query<'listEventTypes'>, options?: CallOptions): Promise<Response<'listEventTypes'>> {
    return this.#call('listEventTypes', { query }, options);
  }

  // -- webhooks -----------------------------------------------------------------------------------------------------
  /** The `whsec_` secret of a `shared_secret` endpoint is in this answer only. */
  createWebhookEndpoint(
    body: Body<'createWebhookEndpoint'>,
    options?: CallOptions,
  ): Promise<Response<'createWebhookEndpoint'>> {
    return this.#call('createWebhookEndpoint', { body }, options);
  }
  listWebhookEndpoints(
    query?: Query<'listWebhookEndpoints'>,
    options?: CallOptions,
  ): Promise<Response<'listWebhookEndpoints'>> {
    return this.#call('listWebhookEndpoints', { query }, options);
  }
  listWebhookEndpointsAll(query?: ListQuery<'listWebhookEndpoints'>, options?: CallOptions) {
    return this.paginate('listWebhookEndpoints', query, options);
  }
  getWebhookEndpoint(id: string, options?: CallOptions): Promise<Response<'getWebhookEndpoint'>> {
    return this.#call('getWebhookEndpoint', { params: { id } }, options);
  }
  updateWebhookEndpoint(
    id: string,
    body: Body<'updateWebhookEndpoint'>,
    options?: CallOptions,
  ): Promise<Response<'updateWebhookEndpoint'>> {
    return this.#call('updateWebhookEndpoint', { params: { id }, body }, options);
  }
  deleteWebhookEndpoint(id: string, options?: CallOptions): Promise<Response<'deleteWebhookEndpoint'>> {
    return this.#call('deleteWebhookEndpoint', { params: { id } }, options);
  }
  /** The new secret signs beside the old one for 24 h; it is in this answer only. */
  rotateWebhookSecret(id: string, options?: CallOptions): Promise<Response<'rotateWebhookSecret'>> {
    return this.#call('rotateWebhookSecret', { params: { id } }, options);
  }
  enableWebhookEndpoint(id: string, options?: CallOptions): Promise<Response<'enableWebhookEndpoint'>> {
    return this.#call('enableWebhookEndpoint', { params: { id } }, options);
  }
  disableWebhookEndpoint(id: string, options?: CallOptions): Promise<Response<'disableWebhookEndpoint'>> {
    return this.#call('disableWebhookEndpoint', { params: { id } }, options);
  }
  listWebhookDeliveries(
    id: string,
    query?: Query<'listWebhookDeliveries'>,
    options?: CallOptions,
  ): Promise<Response<'listWebhookDeliveries'>> {
    return this.#call('listWebhookDeliveries', { params: { id }, query }, options);
  }
  listWebhookDeliveriesAll(id: string, query?: ListQuery<'listWebhookDeliveries'>, options?: CallOptions) {
    return this.paginate('listWebhookDeliveries', query, { ...options, params: { id } });
  }
  /** Queues the events of `{ since, until?, event_types? }` again for this endpoint. */
  replayWebhookDeliveries(
    id: string,
    body: Body<'replayWebhookDeliveries'>,
    options?: CallOptions,
  ): Promise<Response<'replayWebhookDeliveries'>> {
    return this.#call('replayWebhookDeliveries', { params: { id }, body }, options);
  }

  // -- proof bundles (CONTRACT section 12) ------------------------------------------------------------------------
  /** The decision's signed `ns.authority_proof_bundle.v1` (stored write-once): verify it offline with verifyBundle. */
  assembleBundle(body: BundleAssembly, options?: CallOptions): Promise<AuthorityProofBundle> {
    return this.#route('POST', '/v1/bundles/assemble', { body }, options);
  }
  getBundle(id: string, options?: CallOptions): Promise<AuthorityProofBundle> {
    return this.#route('GET', '/v1/bundles/{id}', { params: { id } }, options);
  }
  /** One part exactly as the bundle holds it: `partDigest(part)` is its reference's `sha256`. */
  getBundlePart(id: string, name: BundlePartName, options?: CallOptions): Promise<unknown> {
    return this.#route('GET', '/v1/bundles/{id}/parts/{name}', { params: { id, name } }, options);
  }
  /** The service's signed verification; verifyBundle() is the offline one, which trusts only the JWKS. */
  verifyBundleOnline(body: BundleVerificationRequest, options?: CallOptions): Promise<SignedBundleVerification> {
    return this.#route('POST', '/v1/bundles/verify', { body }, options);
  }

  // -- JSON Schemas (CONTRACT section 16) ---------------------------------------------------------------------------
  listSchemas(options?: CallOptions): Promise<{ items: SchemaCatalogueEntry[] }> {
    return this.#route('GET', '/v1/schemas', {}, options);
  }
  /** One JSON Schema 2020-12 by name, e.g. `ns.webhook.v1`. */
  getSchema(name: string, options?: CallOptions): Promise<Record<string, unknown>> {
    return this.#route('GET', '/v1/schemas/{name}', { params: { name } }, options);
  }

  // -- compliance, self-audit, certification (preview), conformance (CONTRACT sections 13, 14) ----------------------
  listComplianceFrameworks(options?: CallOptions): Promise<{ frameworks: Record<string, unknown>[] }> {
    return this.#route('GET', '/v1/compliance/frameworks', {}, options);
  }
  /** One framework's `ns.rule_pack.v1` (`soc2`, `iso27001`, `eu_ai_act`, `psd3`, `dora`, `nist_ai_rmf`). */
  getComplianceFramework(framework: string, options?: CallOptions): Promise<Record<string, unknown>> {
    return this.#route('GET', '/v1/compliance/frameworks/{framework}', { params: { framework } }, options);
  }
  /** The signed `ns.compliance_projection.v1`, or with `{ format: 'oscal' }` an OSCAL `assessment-results`. */
  createComplianceProjection(
    body: ComplianceProjectionRequest,
    query?: ComplianceProjectionOptions,
    options?: CallOptions,
  ): Promise<Record<string, unknown>> {
    return this.#route('POST', '/v1/compliance/projections', { body, query }, options);
  }
  /** A signed `ns.self_audit_report.v1` of this deployment (admin). */
  createSelfAuditRun(options?: CallOptions): Promise<SignedDocument> {
    return this.#route('POST', '/v1/self-audit/runs', {}, options);
  }
  getSelfAuditRun(id: string, options?: CallOptions): Promise<SignedDocument> {
    return this.#route('GET', '/v1/self-audit/runs/{id}', { params: { id } }, options);
  }
  /** Preview: a self-attestation over a passed conformance report, as a JWS (compact and flattened). */
  createCertificationAttestation(body: AttestationRequest, options?: CallOptions): Promise<CertificationAttestation> {
    return this.#route('POST', '/v1/certification/attestations', { body }, options);
  }
  getCertificationAttestation(id: string, options?: CallOptions): Promise<CertificationAttestation> {
    return this.#route('GET', '/v1/certification/attestations/{id}', { params: { id } }, options);
  }
  verifyCertificationAttestation(
    body: { jws: string | FlattenedJws },
    options?: CallOptions,
  ): Promise<AttestationVerification> {
    return this.#route('POST', '/v1/certification/verify', { body }, options);
  }
  listConformanceProfiles(options?: CallOptions): Promise<{ kit_version: string; profiles: ConformanceProfileInfo[] }> {
    return this.#route('GET', '/v1/conformance/profiles', {}, options);
  }
  listConformanceFixtures(
    query?: { profile?: string },
    options?: CallOptions,
  ): Promise<{ kit_version: string; kit_digest: string; fixtures: ConformanceFixtureInfo[] }> {
    return this.#route('GET', '/v1/conformance/fixtures', { query }, options);
  }
  /** The service runs the kit against itself (seconds to a minute) and answers the signed report (admin). */
  createConformanceRun(body: { profiles?: string[] } = {}, options?: CallOptions): Promise<SignedDocument> {
    return this.#route('POST', '/v1/conformance/runs', { body }, options);
  }
  getConformanceRun(id: string, options?: CallOptions): Promise<SignedDocument> {
    return this.#route('GET', '/v1/conformance/runs/{id}', { params: { id } }, options);
  }
  /** Retires what run `id` created (endpoints deleted, credentials and grants revoked, …); idempotent (admin). */
  retireConformanceRun(id: string, options?: CallOptions): Promise<ConformanceRunRetirement> {
    return this.#route('POST', '/v1/conformance/runs/{id}/retire', { params: { id } }, options);
  }

  // -- connectors and marketplace listings (CONTRACT section 15) ----------------------------------------------------
  listConnectors(query?: ConnectorFilters, options?: CallOptions): Promise<{ items: Record<string, unknown>[] }> {
    return this.#route('GET', '/v1/connectors', { query }, options);
  }
  getConnector(id: string, options?: CallOptions): Promise<Record<string, unknown>> {
    return this.#route('GET', '/v1/connectors/{id}', { params: { id } }, options);
  }
  createListing(body: ListingRegistration, options?: CallOptions): Promise<MarketplaceListing> {
    return this.#route('POST', '/v1/listings', { body }, options);
  }
  getListing(id: string, options?: CallOptions): Promise<MarketplaceListing> {
    return this.#route('GET', '/v1/listings/{id}', { params: { id } }, options);
  }
  /** One page; with `min_score` it may hold fewer than `limit` listings, even none: searchListingsAll reads on. */
  searchListings(query?: ListingSearchFilters, options?: CallOptions): Promise<ItemPage<MarketplaceListing>> {
    return this.#route('GET', '/v1/listings/search', { query }, options);
  }
  searchListingsAll(query: Omit<ListingSearchFilters, 'cursor'> = {}, options?: CallOptions) {
    return paginate<MarketplaceListing>((cursor) =>
      this.searchListings({ ...query, ...(cursor === undefined ? {} : { cursor }) }, options),
    );
  }

  // -- policy content (CONTRACT section 19): rule packs, dictionaries, sector packs, activations, backtests ----------
  /** A draft `ns.rule_pack.v1`; refused with each problem's JSON pointer when outside the profile. */
  createRulePackDraft(
    body: Body<'createRulePackDraft'>,
    options?: CallOptions,
  ): Promise<Response<'createRulePackDraft'>> {
    return this.#call('createRulePackDraft', { body }, options);
  }
  listRulePacks(query?: Query<'listRulePacks'>, options?: CallOptions): Promise<Response<'listRulePacks'>> {
    return this.#call('listRulePacks', { query }, options);
  }
  listRulePacksAll(query?: ListQuery<'listRulePacks'>, options?: CallOptions) {
    return this.paginate('listRulePacks', query, options);
  }
  /** `name` is the pack's name (`velocity`) or its whole id. */
  getRulePackVersions(name: string, options?: CallOptions): Promise<Response<'getRulePackVersions'>> {
    return this.#call('getRulePackVersions', { params: { name } }, options);
  }
  /** The version's document, exactly the stored (signed, once published) bytes. */
  getRulePackVersion(name: string, version: string, options?: CallOptions): Promise<Response<'getRulePackVersion'>> {
    return this.#call('getRulePackVersion', { params: { name, version } }, options);
  }
  testRulePack(name: string, version: string, options?: CallOptions): Promise<Response<'testRulePack'>> {
    return this.#call('testRulePack', { params: { name, version } }, options);
  }
  /** Runs the pack's tests and, when every one passes, signs and publishes it (immutable from then on). */
  publishRulePack(name: string, version: string, options?: CallOptions): Promise<Response<'publishRulePack'>> {
    return this.#call('publishRulePack', { params: { name, version } }, options);
  }
  /** Retires the version and deactivates its activations, in one transaction. */
  retireRulePack(name: string, version: string, options?: CallOptions): Promise<Response<'retireRulePack'>> {
    return this.#call('retireRulePack', { params: { name, version } }, options);
  }
  /** A what-if run of the version over stored decisions; poll getBacktest for its progress and report. */
  startBacktest(
    name: string,
    version: string,
    body: Body<'startBacktest'>,
    options?: CallOptions,
  ): Promise<Response<'startBacktest'>> {
    return this.#call('startBacktest', { params: { name, version }, body }, options);
  }
  getBacktest(id: string, options?: CallOptions): Promise<Response<'getBacktest'>> {
    return this.#call('getBacktest', { params: { id } }, options);
  }
  createDictionaryDraft(
    body: Body<'createDictionaryDraft'>,
    options?: CallOptions,
  ): Promise<Response<'createDictionaryDraft'>> {
    return this.#call('createDictionaryDraft', { body }, options);
  }
  listDictionaries(query?: Query<'listDictionaries'>, options?: CallOptions): Promise<Response<'listDictionaries'>> {
    return this.#call('listDictionaries', { query }, options);
  }
  listDictionariesAll(query?: ListQuery<'listDictionaries'>, options?: CallOptions) {
    return this.paginate('listDictionaries', query, options);
  }
  getDictionaryVersions(name: string, options?: CallOptions): Promise<Response<'getDictionaryVersions'>> {
    return this.#call('getDictionaryVersions', { params: { name } }, options);
  }
  getDictionaryVersion(
    name: string,
    version: string,
    options?: CallOptions,
  ): Promise<Response<'getDictionaryVersion'>> {
    return this.#call('getDictionaryVersion', { params: { name, version } }, options);
  }
  publishDictionary(name: string, version: string, options?: CallOptions): Promise<Response<'publishDictionary'>> {
    return this.#call('publishDictionary', { params: { name, version } }, options);
  }
  /** One term; the latest published version unless `query.version` names one. */
  getDictionaryTerm(
    name: string,
    code: string,
    query?: Query<'getDictionaryTerm'>,
    options?: CallOptions,
  ): Promise<Response<'getDictionaryTerm'>> {
    return this.#call('getDictionaryTerm', { params: { name, code }, query }, options);
  }
  listSectorPacks(options?: CallOptions): Promise<Response<'listSectorPacks'>> {
    return this.#call('listSectorPacks', {}, options);
  }
  getSectorPack(name: string, options?: CallOptions): Promise<Response<'getSectorPack'>> {
    return this.#call('getSectorPack', { params: { name } }, options);
  }
  /** Activates the sector pack's rule packs for a principal, all or nothing. */
  applySectorPack(
    name: string,
    body: Body<'applySectorPack'>,
    options?: CallOptions,
  ): Promise<Response<'applySectorPack'>> {
    return this.#call('applySectorPack', { params: { name }, body }, options);
  }
  createRuleActivation(
    body: Body<'createRuleActivation'>,
    options?: CallOptions,
  ): Promise<Response<'createRuleActivation'>> {
    return this.#call('createRuleActivation', { body }, options);
  }
  listRuleActivations(
    query?: Query<'listRuleActivations'>,
    options?: CallOptions,
  ): Promise<Response<'listRuleActivations'>> {
    return this.#call('listRuleActivations', { query }, options);
  }
  listRuleActivationsAll(query?: ListQuery<'listRuleActivations'>, options?: CallOptions) {
    return this.paginate('listRuleActivations', query, options);
  }
  deleteRuleActivation(id: string, options?: CallOptions): Promise<Response<'deleteRuleActivation'>> {
    return this.#call('deleteRuleActivation', { params: { id } }, options);
  }

  // -- audit chain --------------------------------------------------------------------------------------------------
  appendAuditEntry(body: Body<'appendAuditEntry'>, options?: CallOptions): Promise<Response<'appendAuditEntry'>> {
    return this.#call('appendAuditEntry', { body }, options);
  }
  /** The service walks its whole chain: `{ valid, size, root_hash, checked, first_invalid_index?, checkpoint }`. */
  /** The whole chain, or with `{ from: 'verified' }` only what is new since the last signed verification mark. */
  verifyAudit(query?: Query<'verifyAudit'>, options?: CallOptions): Promise<Response<'verifyAudit'>> {
    return this.#call('verifyAudit', { query }, options);
  }
  getAuditCheckpoint(options?: CallOptions): Promise<Response<'getAuditCheckpoint'>> {
    return this.#call('getAuditCheckpoint', {}, options);
  }
  signAuditCheckpoint(options?: CallOptions): Promise<Response<'signAuditCheckpoint'>> {
    return this.#call('signAuditCheckpoint', {}, options);
  }
  /** By leaf index, or by entry id (`ns:audit:<uuid>`). */
  getAuditEntry(index: number | string, options?: CallOptions): Promise<Response<'getAuditEntry'>> {
    return this.#call('getAuditEntry', { params: { index } }, options);
  }
  getInclusionProof(query: Query<'getInclusionProof'>, options?: CallOptions): Promise<Response<'getInclusionProof'>> {
    return this.#call('getInclusionProof', { query }, options);
  }
  getConsistencyProof(
    query: Query<'getConsistencyProof'>,
    options?: CallOptions,
  ): Promise<Response<'getConsistencyProof'>> {
    return this.#call('getConsistencyProof', { query }, options);
  }

  // -- AuthZEN Authorization API 1.0 (CONTRACT section 20) ------------------------------------------------------------
  /** The PDP metadata (`GET /.well-known/authzen-configuration`): the absolute URL of each AuthZEN endpoint. */
  getAuthzenConfiguration(options?: CallOptions): Promise<Response<'getAuthzenConfiguration'>> {
    return this.#call('getAuthzenConfiguration', {}, options);
  }
  /**
   * One AuthZEN evaluation. `decision` is true only for `allow_with_constraints` (purchases) or `permit` (generic);
   * `context.aar` carries the whole answer (the authorize response, or the signed `ns.access_decision.v1`).
   */
  authzenEvaluate(body: Body<'authzenEvaluate'>, options?: CallOptions): Promise<Response<'authzenEvaluate'>> {
    return this.#call('authzenEvaluate', { body }, options);
  }
  /** Many evaluations: request-level defaults, per-item overrides, `options.evaluations_semantic`; at most 100. */
  authzenEvaluateMany(
    body: Body<'authzenEvaluateMany'>,
    options?: CallOptions,
  ): Promise<Response<'authzenEvaluateMany'>> {
    return this.#call('authzenEvaluateMany', { body }, options);
  }
  authzenSearchSubjects(
    body: Body<'authzenSearchSubjects'>,
    options?: CallOptions,
  ): Promise<Response<'authzenSearchSubjects'>> {
    return this.#call('authzenSearchSubjects', { body }, options);
  }
  authzenSearchResources(
    body: Body<'authzenSearchResources'>,
    options?: CallOptions,
  ): Promise<Response<'authzenSearchResources'>> {
    return this.#call('authzenSearchResources', { body }, options);
  }
  authzenSearchActions(
    body: Body<'authzenSearchActions'>,
    options?: CallOptions,
  ): Promise<Response<'authzenSearchActions'>> {
    return this.#call('authzenSearchActions', { body }, options);
  }
}

/** The list operations that take a `cursor`: the ones `paginate()` walks. */
export type PaginatedOperation = {
  [N in OperationName]: 'cursor' extends keyof Operations[N]['query'] ? N : never;
}[OperationName];

export type { EventEnvelope };
