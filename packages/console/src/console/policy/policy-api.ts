/**
 * The policy-content endpoints of CONTRACT section 19 as the console reads them: rule packs, their versions, pack
 * tests, backtests, activations, dictionaries and sector packs. Answers are read defensively (an older or newer
 * server may add or omit members): every reader here takes `unknown` and returns a shape the pages can draw, never
 * throwing on a member it does not know. The documents themselves are core's types (`@aar/core`).
 */
import type { DictionaryDocument, DictionaryTerm, RulePackDocument, SectorPackDocument } from '@aar/core';
import { readAll, type ApiClient } from '../api-client.ts';

export interface PackVersionSummary {
  name: string;
  pack_id: string;
  version: string;
  domain: string;
  state: string;
  title: string;
  origin: string;
  digest: string | null;
  updated_at: string | null;
}

export interface PackSummary {
  name: string;
  pack_id: string;
  title: string;
  domain: string;
  /** the newest version's state */
  state: string;
  origin: string;
  /** newest first */
  versions: PackVersionSummary[];
  /** active activations of any of its versions */
  activations: { enforce: number; shadow: number };
}

export interface Activation {
  activation_id: string;
  pack_id: string;
  name: string;
  version: string;
  mode: string;
  state: string;
  target: string;
}

export interface PackVersion extends PackVersionSummary {
  document: RulePackDocument;
}

export interface PackTestRun {
  passed: number;
  failed: number;
  results: { name: string; passed: boolean; actual: string; expected: string }[];
}

export interface OutcomeRow {
  key: string;
  before: number;
  after: number;
}

export interface BacktestSample {
  policy_decision_id: string;
  before: string;
  after: string;
}

export interface Backtest {
  state: string;
  done: number;
  total: number;
  error?: string;
  result?: {
    decisions: number;
    changed: number;
    by_outcome: OutcomeRow[];
    by_reason: OutcomeRow[];
    samples: BacktestSample[];
  };
}

export interface DictionarySummary {
  name: string;
  dictionary_id: string;
  version: string;
  title: string;
  source: string;
  state: string;
  origin: string;
}

type Json = Record<string, unknown>;

const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const enc = encodeURIComponent;

/** `ns:rule_pack:velocity` -> `velocity`; a plain name stays. */
export function nameOf(id: string): string {
  const at = id.lastIndexOf(':');
  return at === -1 ? id : id.slice(at + 1);
}

/** Semver order, newest first (pre-release and build parts compared as text after the numbers). */
export function compareVersionsDesc(a: string, b: string): number {
  const parts = (v: string) => v.split(/[.+-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const x = pa[i];
    const y = pb[i];
    if (x === y) continue;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    if (typeof x === 'number' && typeof y === 'number') return y - x;
    return String(y).localeCompare(String(x));
  }
  return 0;
}

/** One row of `GET /v1/rule-packs` or of a pack's versions (the document's members when the row embeds it). */
export function readPackVersion(raw: unknown): PackVersionSummary {
  const row = obj(raw);
  const doc = obj(row.document);
  const packId = str(row.pack_id, str(row.id, str(doc.pack_id, `ns:rule_pack:${str(row.name)}`)));
  return {
    name: str(row.name, nameOf(packId)),
    pack_id: packId,
    version: str(row.version, str(doc.version)),
    domain: str(row.domain, str(doc.domain, 'purchase')),
    state: str(row.state, 'published'),
    title: str(row.title, str(doc.title, nameOf(packId))),
    origin: str(row.origin, '—'),
    digest: typeof row.digest === 'string' ? row.digest : null,
    updated_at: typeof row.updated_at === 'string' ? row.updated_at : null,
  };
}

export function readActivation(raw: unknown): Activation {
  const row = obj(raw);
  const packId = str(row.pack_id, str(row.pack_name));
  const target = obj(row.target);
  const targetText =
    target.deployment === true || row.target_kind === 'deployment'
      ? 'deployment'
      : str(target.principal_entity_id, str(target.grant_id, str(row.target_id, '—')));
  return {
    activation_id: str(row.activation_id),
    pack_id: packId,
    name: str(row.pack_name, nameOf(packId)),
    version: str(row.version),
    mode: str(row.mode, 'enforce'),
    state: str(row.state, 'active'),
    target: targetText,
  };
}

/** The pack list: versions grouped by pack name, with how many active activations each has. */
export function groupPacks(rows: readonly PackVersionSummary[], activations: readonly Activation[]): PackSummary[] {
  const byName = new Map<string, PackVersionSummary[]>();
  for (const row of rows) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
  return [...byName.entries()]
    .map(([name, versions]) => {
      const sorted = [...versions].sort((a, b) => compareVersionsDesc(a.version, b.version));
      const newest = sorted[0]!;
      const live = activations.filter((a) => a.name === name && a.state === 'active');
      return {
        name,
        pack_id: newest.pack_id,
        title: newest.title,
        domain: newest.domain,
        state: newest.state,
        origin: newest.origin,
        versions: sorted,
        activations: {
          enforce: live.filter((a) => a.mode === 'enforce').length,
          shadow: live.filter((a) => a.mode === 'shadow').length,
        },
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

export async function listPacks(api: ApiClient): Promise<PackSummary[]> {
  const [rows, activations] = await Promise.all([readAll<unknown>(api, '/v1/rule-packs'), listActivations(api)]);
  return groupPacks(rows.map(readPackVersion), activations);
}

export async function listActivations(api: ApiClient, query: Record<string, string> = {}): Promise<Activation[]> {
  return (await readAll<unknown>(api, '/v1/rule-activations', query)).map(readActivation);
}

/** `GET /v1/rule-packs/{name}`: its versions, as a list or under `versions`/`items`. */
export async function packVersions(api: ApiClient, name: string): Promise<PackVersionSummary[]> {
  const body = await api.get<unknown>(`/v1/rule-packs/${enc(name)}`);
  const list = Array.isArray(body) ? body : arr(obj(body).versions).length ? obj(body).versions : obj(body).items;
  return arr(list)
    .map(readPackVersion)
    .sort((a, b) => compareVersionsDesc(a.version, b.version));
}

/** `GET …/versions/{version}`: the row with its document, or the document itself. */
export function readPackVersionBody(raw: unknown): PackVersion {
  const body = obj(raw);
  const document = (body.schema_version === 'ns.rule_pack.v1'
    ? body
    : obj(body.document)) as unknown as RulePackDocument;
  return { ...readPackVersion({ ...body, document }), document };
}

/**
 * The version's document (served as the exact stored bytes) with its state, origin and digest from the pack's
 * versions list (the document itself does not carry them).
 */
export async function getPackVersion(api: ApiClient, name: string, version: string): Promise<PackVersion> {
  const [body, versions] = await Promise.all([
    api.get<unknown>(`/v1/rule-packs/${enc(name)}/versions/${enc(version)}`),
    packVersions(api, name),
  ]);
  const read = readPackVersionBody(body);
  const row = versions.find((v) => v.version === read.version);
  return row ? { ...read, state: row.state, origin: row.origin, digest: row.digest, updated_at: row.updated_at } : read;
}

function outcomeText(raw: unknown): string {
  const o = obj(raw);
  const effect = str(o.effect, str(o.decision, 'none'));
  const reason = str(o.reason);
  return reason ? `${effect} (${reason})` : effect;
}

/** `POST …/test`: core's runPackTests result. */
export function readTestRun(raw: unknown): PackTestRun {
  const body = obj(raw);
  const results = arr(body.results).map((r) => {
    const row = obj(r);
    return {
      name: str(row.name),
      passed: row.passed === true,
      actual: outcomeText(row.actual),
      expected: outcomeText(row.expected ?? row.expect),
    };
  });
  return {
    passed: typeof body.passed === 'number' ? body.passed : results.filter((r) => r.passed).length,
    failed: typeof body.failed === 'number' ? body.failed : results.filter((r) => !r.passed).length,
    results,
  };
}

export async function testPackVersion(api: ApiClient, name: string, version: string): Promise<PackTestRun> {
  return readTestRun(await api.post<unknown>(`/v1/rule-packs/${enc(name)}/versions/${enc(version)}/test`, {}));
}

/**
 * Counts before and after, from any of the shapes a report may use: `{ key: { before, after } }`,
 * `{ before: { key: n }, after: { key: n } }`, `[{ outcome|decision|reason|key, before, after }]`, or `{ key: n }`
 * (one count: what the pack would decide, shown as "after").
 */
export function readOutcomeRows(raw: unknown): OutcomeRow[] {
  const rows = new Map<string, OutcomeRow>();
  const add = (key: string, before: number, after: number) => {
    const row = rows.get(key) ?? { key, before: 0, after: 0 };
    rows.set(key, { key, before: row.before + before, after: row.after + after });
  };
  if (Array.isArray(raw)) {
    for (const item of raw) {
      const row = obj(item);
      const key = str(row.outcome, str(row.decision, str(row.reason, str(row.key, str(row.effect)))));
      add(key, num(row.before), num(row.after ?? row.count));
    }
  } else {
    const body = obj(raw);
    const before = obj(body.before);
    const after = obj(body.after);
    if (Object.keys(before).length + Object.keys(after).length > 0 && Object.keys(body).length <= 2) {
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
        add(key, num(before[key]), num(after[key]));
      }
    } else {
      for (const [key, v] of Object.entries(body)) {
        if (typeof v === 'number') add(key, 0, v);
        else add(key, num(obj(v).before), num(obj(v).after ?? obj(v).count));
      }
    }
  }
  return [...rows.values()];
}

export function readBacktest(raw: unknown): Backtest {
  const body = obj(raw);
  const progress = obj(body.progress);
  const result = body.result === undefined || body.result === null ? undefined : obj(body.result);
  return {
    state: str(body.state, 'running'),
    done: num(progress.done),
    total: num(progress.total),
    ...(typeof body.error === 'string' ? { error: body.error } : {}),
    ...(result
      ? {
          result: {
            decisions: num(result.decisions),
            changed: num(result.changed),
            by_outcome: readOutcomeRows(result.by_outcome),
            by_reason: readOutcomeRows(result.by_reason),
            samples: arr(result.samples).map((s) => {
              const row = obj(s);
              return {
                policy_decision_id: str(row.policy_decision_id, str(row.decision_id)),
                before: outcomeText(row.before),
                after: outcomeText(row.after),
              };
            }),
          },
        }
      : {}),
  };
}

export async function startBacktest(
  api: ApiClient,
  name: string,
  version: string,
  params: { from: string; until: string; principal_entity_id?: string },
): Promise<string> {
  const body = await api.post<unknown>(`/v1/rule-packs/${enc(name)}/versions/${enc(version)}/backtests`, params);
  return str(obj(body).backtest_id);
}

export async function getBacktest(api: ApiClient, id: string): Promise<Backtest> {
  return readBacktest(await api.get<unknown>(`/v1/backtests/${enc(id)}`));
}

export function readDictionarySummary(raw: unknown): DictionarySummary {
  const row = obj(raw);
  const doc = obj(row.document);
  const id = str(row.dictionary_id, str(row.id, str(doc.dictionary_id, `ns:dictionary:${str(row.name)}`)));
  return {
    name: str(row.name, nameOf(id)),
    dictionary_id: id,
    version: str(row.version, str(doc.version)),
    title: str(row.title, str(doc.title, nameOf(id))),
    source: str(row.source, str(doc.source, '—')),
    state: str(row.state, 'published'),
    origin: str(row.origin, '—'),
  };
}

export async function listDictionaries(api: ApiClient): Promise<DictionarySummary[]> {
  const rows = (await readAll<unknown>(api, '/v1/dictionaries')).map(readDictionarySummary);
  return rows.sort((a, b) => a.name.localeCompare(b.name) || compareVersionsDesc(a.version, b.version));
}

/** `GET /v1/dictionaries/{name}`: the (newest published) document, bare or under `document`. */
export function readDictionaryBody(raw: unknown): DictionaryDocument {
  const body = obj(raw);
  if (body.schema_version === 'ns.dictionary.v1') return body as unknown as DictionaryDocument;
  if (obj(body.document).schema_version === 'ns.dictionary.v1') return body.document as DictionaryDocument;
  const versions = arr(body.versions ?? body.items);
  const newest = versions.map(obj).find((v) => obj(v.document).schema_version === 'ns.dictionary.v1');
  return obj(newest?.document) as unknown as DictionaryDocument;
}

/**
 * A dictionary's newest published version (else its newest), as a document: `GET /v1/dictionaries/{name}` lists the
 * versions, `…/versions/{version}` serves the document.
 */
export async function getDictionary(api: ApiClient, name: string): Promise<DictionaryDocument> {
  const body = await api.get<unknown>(`/v1/dictionaries/${enc(name)}`);
  const direct = readDictionaryBody(body);
  if (Array.isArray(direct.terms)) return direct;
  const versions = arr(obj(body).versions)
    .map(readDictionarySummary)
    .sort((a, b) => compareVersionsDesc(a.version, b.version));
  const chosen = versions.find((v) => v.state === 'published') ?? versions[0];
  if (!chosen) return direct;
  return readDictionaryBody(await api.get<unknown>(`/v1/dictionaries/${enc(name)}/versions/${enc(chosen.version)}`));
}

/** Terms whose code, label or any attribute's text contains the query (case-insensitive). */
export function searchTerms(terms: readonly DictionaryTerm[], query: string): DictionaryTerm[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [...terms];
  return terms.filter((t) => Object.values(t).some((v) => String(v).toLowerCase().includes(q)));
}

export function readSectorPack(raw: unknown): SectorPackDocument & { state: string } {
  const row = obj(raw);
  const doc = obj(row.schema_version === 'ns.sector_pack.v1' ? row : row.document);
  return {
    schema_version: 'ns.sector_pack.v1',
    sector_pack_id: str(doc.sector_pack_id, str(row.sector_pack_id, `ns:sector_pack:${str(row.name)}`)),
    version: str(doc.version, str(row.version)),
    title: str(doc.title, str(row.title)),
    sector: str(doc.sector, str(row.sector)),
    rule_packs: arr(doc.rule_packs ?? row.rule_packs).map((p) => String(p)),
    scope_templates: arr(doc.scope_templates ?? row.scope_templates).map((t) => ({
      name: str(obj(t).name),
      scope: obj(obj(t).scope),
    })),
    dictionaries: arr(doc.dictionaries ?? row.dictionaries).map((d) => String(d)),
    state: str(row.state, 'published'),
  };
}

/** The list names each sector pack; its scope templates and dictionaries are in its document (`GET …/{name}`). */
export async function listSectorPacks(api: ApiClient): Promise<(SectorPackDocument & { state: string })[]> {
  const rows = await readAll<unknown>(api, '/v1/sector-packs');
  return Promise.all(
    rows.map(async (row) => {
      const summary = readSectorPack(row);
      const name = str(obj(row).name, nameOf(summary.sector_pack_id));
      if (summary.scope_templates.length > 0 || !name) return summary;
      return { ...readSectorPack(await api.get<unknown>(`/v1/sector-packs/${enc(name)}`)), state: summary.state };
    }),
  );
}
