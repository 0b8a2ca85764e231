/**
 * The policy set of one decision (DESIGN-27 section 6): the `enforce` and `shadow` pack versions active for the
 * deployment, the principal and the request's grants, in that order (within each, activation creation order), with
 * the dictionaries they declare, as decide's `snapshot.policy_set` carries them.
 *
 * INVARIANTS
 * - Cached per grant version: migration 0017 moves the version on every change of `rule_activations` and
 *   `rule_packs`, in the changing transaction, and the caller reads the version BEFORE calling; a set read at version
 *   V is kept only while the cache is at V, so an activation or retirement committed before the authorize began is
 *   always seen (the same rule as services/authorize/grant-cache.ts).
 * - Nothing is used before it is checked: each activation row against its chained events (chained-activation.ts),
 *   each pack and dictionary document against its signature and digest (document-integrity.ts). Any doubt is
 *   503 `audit_unavailable` (fail closed): a decision is never made under a policy set the chain does not back.
 * - Activations and their pack rows are read in ONE statement, so a retirement committing in between cannot make a
 *   consistent store look forged.
 * The result is shared between requests: callers must not change it.
 */
import {
  dictionarySnapshot,
  dictionaryTermsRead,
  pathsRead,
  rulePaths,
  type DictionaryDocument,
  type DictionarySnapshot,
  type PolicySetPack,
  type PolicySetSnapshot,
  type RulePackDocument,
} from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { integrityFailure, chainedStateCacheOf } from '../authorize/chained-state.ts';
import { ACTIVATION_CREATED, ACTIVATION_DEACTIVATED, assertActivationChained } from './chained-activation.ts';
import { trustedDocument } from './document-integrity.ts';
import { parseRef, policyId } from './policy-ids.ts';

export interface PolicyTarget {
  principal_entity_id: string;
  grant_ids: string[];
}

export interface ActivePolicySet {
  policySet: PolicySetSnapshot;
  /** some active rule reads `facts.counters`: authorize computes the counters only then */
  readsCounters: boolean;
  /** some active rule reads `facts.local_time` */
  readsLocalTime: boolean;
}

const MAX_KEYS = 10_000;
interface CacheState {
  version: number;
  sets: Map<string, ActivePolicySet | null>;
}
const caches = new WeakMap<AppContext, CacheState>();

const TARGET_ORDER = { deployment: 0, principal: 1, grant: 2 } as const;

export async function loadActivePolicySet(
  ctx: AppContext,
  target: PolicyTarget,
  version: number,
): Promise<ActivePolicySet | undefined> {
  let cache = caches.get(ctx);
  if (!cache || cache.version !== version) {
    // a newer version empties the cache; an older reader (it raced a change) neither reads nor fills it
    if (!cache || version > cache.version) {
      cache = { version, sets: new Map() };
      caches.set(ctx, cache);
    }
  }
  const key = `${target.principal_entity_id}\n${[...new Set(target.grant_ids)].sort().join('\n')}`;
  if (cache.version === version) {
    const hit = cache.sets.get(key);
    if (hit !== undefined) return hit ?? undefined;
  }
  const set = await readActivePolicySet(ctx, target);
  if (cache.version === version) {
    if (cache.sets.size >= MAX_KEYS) cache.sets.clear();
    cache.sets.set(key, set ?? null);
  }
  return set;
}

/** The same, never cached: what the cache is filled with. */
export async function readActivePolicySet(ctx: AppContext, target: PolicyTarget): Promise<ActivePolicySet | undefined> {
  const db = ctx.store.db;
  const grants = [...new Set(target.grant_ids)];
  const rows = await db
    .selectFrom('rule_activations as a')
    .leftJoin('rule_packs as p', (join) =>
      join.onRef('p.name', '=', 'a.pack_name').onRef('p.version', '=', 'a.version'),
    )
    .select((eb) => [
      'a.seq',
      'a.activation_id',
      'a.pack_name',
      'a.version',
      'a.digest',
      'a.target_kind',
      'a.target_id',
      'a.mode',
      'a.state',
      'a.sector_pack',
      'p.state as pack_state',
      'p.document as pack_document',
      'p.digest as pack_digest',
      eb
        .selectFrom('events as e')
        .select('e.envelope')
        .whereRef('e.subject_ref', '=', 'a.activation_id')
        .where('e.event_type', '=', ACTIVATION_CREATED)
        .orderBy('e.seq', 'desc')
        .limit(1)
        .as('created_event'),
      eb
        .selectFrom('events as e')
        .select('e.envelope')
        .whereRef('e.subject_ref', '=', 'a.activation_id')
        .where('e.event_type', '=', ACTIVATION_DEACTIVATED)
        .orderBy('e.seq', 'desc')
        .limit(1)
        .as('deactivated_event'),
    ])
    .where('a.state', '=', 'active')
    .where((eb) =>
      eb.or([
        eb('a.target_kind', '=', 'deployment'),
        eb.and([eb('a.target_kind', '=', 'principal'), eb('a.target_id', '=', target.principal_entity_id)]),
        ...(grants.length > 0 ? [eb.and([eb('a.target_kind', '=', 'grant'), eb('a.target_id', 'in', grants)])] : []),
      ]),
    )
    .orderBy('a.seq')
    .execute();
  if (rows.length === 0) return undefined;
  rows.sort((a, b) => TARGET_ORDER[a.target_kind] - TARGET_ORDER[b.target_kind] || Number(a.seq) - Number(b.seq));

  const chained = chainedStateCacheOf(ctx);
  const packs: PolicySetPack[] = [];
  const wanted = new Map<string, { name: string; version: string }>();
  let readsCounters = false;
  let readsLocalTime = false;
  /** every path any active pack's rules read: what the snapshot keeps of the dictionaries */
  const read = new Set<string>();
  for (const row of rows) {
    await assertActivationChained(db, chained, row);
    const where = `${policyId('rule_pack', row.pack_name)}@${row.version}`;
    // an active activation of a pack that is not published, in one consistent read: the store was edited
    if (row.pack_state !== 'published' || row.pack_document === null)
      throw integrityFailure('rule_packs', where, 'state');
    if (row.pack_digest !== row.digest) throw integrityFailure('rule_activations', row.activation_id, 'digest');
    const document = await trustedDocument<RulePackDocument>(ctx, 'rule_pack', {
      name: row.pack_name,
      version: row.version,
      document: row.pack_document,
      digest: row.pack_digest,
      state: row.pack_state,
    });
    packs.push({ activation_id: row.activation_id, mode: row.mode, document });
    const paths = rulePaths(document);
    // pathsRead, not a prefix test: a rule reading `facts` or the whole context reads the counters too
    if (pathsRead(paths, 'facts.counters')) readsCounters = true;
    if (pathsRead(paths, 'facts.local_time')) readsLocalTime = true;
    for (const path of paths) read.add(path);
    for (const ref of document.dictionaries ?? []) {
      const parsed = parseRef('dictionary', ref);
      if (!parsed) throw integrityFailure('rule_packs', where, 'document');
      // by name: the first pack (in activation order) to declare a dictionary fixes the version rules read
      if (!wanted.has(parsed.name)) wanted.set(parsed.name, parsed);
    }
  }
  return {
    policySet: {
      packs,
      dictionaries: dictionaryTermsRead([...read], await readDictionaries(ctx, [...wanted.values()])),
    },
    readsCounters,
    readsLocalTime,
  };
}

async function readDictionaries(
  ctx: AppContext,
  refs: ReadonlyArray<{ name: string; version: string }>,
): Promise<Record<string, DictionarySnapshot>> {
  const out: Record<string, DictionarySnapshot> = {};
  if (refs.length === 0) return out;
  const rows = await ctx.store.db
    .selectFrom('dictionaries')
    .select(['name', 'version', 'state', 'document', 'digest'])
    .where((eb) => eb.or(refs.map((r) => eb.and([eb('name', '=', r.name), eb('version', '=', r.version)]))))
    .execute();
  for (const ref of refs) {
    const row = rows.find((r) => r.name === ref.name && r.version === ref.version);
    const where = `${policyId('dictionary', ref.name)}@${ref.version}`;
    // a published pack's dictionaries were published when it was, and a published dictionary never goes away
    if (!row || row.state !== 'published') throw integrityFailure('dictionaries', where, 'state');
    out[ref.name] = dictionarySnapshot(await trustedDocument<DictionaryDocument>(ctx, 'dictionary', row));
  }
  return out;
}
