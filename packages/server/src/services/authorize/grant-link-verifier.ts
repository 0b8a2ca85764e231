/**
 * Is a stored grant exactly what the service signed? A link is trusted only when its signature verifies against
 * the JWKS AND its signed content equals the grant row that authorize reads (a valid signature over other content
 * proves nothing). Links are immutable (state lives outside them), so a verified (grant id, document) pair is
 * cached; a changed document is a different cache key and is verified afresh.
 * Attacker assumption: someone with write access to the database edits a grant's scope or actor.
 */
import { canonicalJson, verifyDocument, verifyLinkDelegation, type Jwks } from '@aar/core';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { GrantsTable } from '../../store/index.ts';
import { scopeToWire, type StoredScope } from '../grants/grant-scope.ts';
import { GrantCache } from './grant-cache.ts';

const CACHE_LIMIT = 100_000;
const JWKS_REFRESH_MS = 5_000;

export class GrantLinkVerifier {
  readonly #ctx: AppContext;
  readonly #verified = new Map<string, boolean>();
  #jwks: Jwks | undefined;
  #jwksAt = 0;
  /** the instance's grant rows cache (grant-cache.ts), shared by every authorize of this app */
  readonly grants: GrantCache;

  constructor(ctx: AppContext, grants: GrantCache = new GrantCache(ctx)) {
    this.#ctx = ctx;
    this.grants = grants;
  }

  /**
   * The service signature verifies and matches the row; for a delegated link that carries the delegator's statement,
   * that signature verifies too and the statement authorises exactly this link under `parent` (immutable as well,
   * so the answer is cached with the link).
   */
  async isTrusted(row: Selectable<GrantsTable>, parent?: Selectable<GrantsTable>): Promise<boolean> {
    const key = `${row.grant_id}\n${row.document}`;
    const cached = this.#verified.get(key);
    if (cached !== undefined) return cached;
    const trusted =
      (await this.#verifySignature(row.document)) && linkMatchesRow(row) && (await delegationHolds(row, parent));
    if (this.#verified.size >= CACHE_LIMIT) this.#verified.clear();
    this.#verified.set(key, trusted);
    return trusted;
  }

  async #verifySignature(document: string): Promise<boolean> {
    let link: unknown;
    try {
      link = JSON.parse(document);
    } catch {
      return false;
    }
    let result = await verifyDocument(link, await this.#trustedKeys(false));
    if (!result.valid && result.failure === 'unknown_key')
      result = await verifyDocument(link, await this.#trustedKeys(true));
    return result.valid;
  }

  async #trustedKeys(refresh: boolean): Promise<Jwks> {
    const now = Date.now();
    if (!this.#jwks || (refresh && now - this.#jwksAt > JWKS_REFRESH_MS)) {
      this.#jwks = (await this.#ctx.keys.jwks()) as Jwks;
      this.#jwksAt = now;
    }
    return this.#jwks;
  }
}

function linkMatchesRow(row: Selectable<GrantsTable>): boolean {
  try {
    const link = JSON.parse(row.document) as Record<string, unknown>;
    const expected = {
      grant_id: row.grant_id,
      parent_grant_id: row.parent_grant_id,
      principal_entity_id: row.principal_entity_id,
      actor_entity_id: row.actor_entity_id,
      capability_id: row.capability_id,
      resource_id: row.resource_id,
      scope: scopeToWire(JSON.parse(row.scope) as StoredScope),
      depth: row.depth,
    };
    const signed = Object.fromEntries(Object.keys(expected).map((k) => [k, link[k]]));
    return canonicalJson(signed) === canonicalJson(expected);
  } catch {
    return false;
  }
}

/** A link without the delegator's statement holds trivially; one with it must verify under its parent. */
async function delegationHolds(row: Selectable<GrantsTable>, parent?: Selectable<GrantsTable>): Promise<boolean> {
  try {
    const link = JSON.parse(row.document) as Record<string, unknown>;
    if (link.delegation === undefined) return true;
    if (!parent) return false;
    const facts = (l: Record<string, unknown>) => ({
      parent_grant_id: l.parent_grant_id,
      actor_entity_id: l.actor_entity_id,
      principal_entity_id: l.principal_entity_id,
      capability_id: l.capability_id,
      resource_id: l.resource_id,
      scope: l.scope,
      issued_at: l.issued_at,
      delegator_entity_id: l.delegator_entity_id,
    });
    const parentLink = JSON.parse(parent.document) as Record<string, unknown>;
    return (await verifyLinkDelegation(link.delegation, facts(link), facts(parentLink), undefined)).length === 0;
  } catch {
    return false;
  }
}
