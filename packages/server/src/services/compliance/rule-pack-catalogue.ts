/**
 * The compliance rule packs shipped with the server: `packages/server/rule-packs/<framework>-<version>.json`, each an
 * `ns.rule_pack.v1` document (schema `schemas/ns.rule_pack.v1.schema.json`, the one policy packs use too) of the
 * `generic` domain without rules, whose `controls` the projection evaluates. Data, never code: a framework or a
 * corrected mapping is a new file. When a framework has several versions, the highest serves.
 * INVARIANT: a file is served only when it validates against the schema, its name is its framework and version (and
 * its `pack_id` `ns:rule_pack:<framework>`), it has no rules, its
 * control ids are unique and every `reason` a status would need is present; a malformed file fails the first read
 * loudly (the server does not start half-informed). Read once per process: packs are part of the release.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { AarError, type RulePack } from '@aar/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default export arrives wrapped depending on the loader
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;

/** From src/services/compliance/ and dist/services/compliance/ alike. */
export const RULE_PACK_FOLDER = new URL('../../../rule-packs/', import.meta.url);
const SCHEMA_FILE = new URL('../../../schemas/ns.rule_pack.v1.schema.json', import.meta.url);
const FILE_NAME = /^([a-z0-9_]+)-([0-9]+\.[0-9]+\.[0-9]+)\.json$/;

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

/** Every rule pack of `folder`, the highest version per framework, in framework order. Throws on a bad file. */
export function readRulePackFolder(folder: URL = RULE_PACK_FOLDER): Map<string, RulePack> {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
  const latest = new Map<string, RulePack>();
  for (const file of readdirSync(folder).sort()) {
    if (!file.endsWith('.json')) continue;
    const fail = (why: string) => new Error(`rule-packs/${file}: ${why}`);
    const named = FILE_NAME.exec(file);
    if (!named) throw fail('the name is not `<framework>-<major>.<minor>.<patch>.json`');
    const doc: unknown = JSON.parse(readFileSync(new URL(file, folder), 'utf8'));
    if (!validate(doc)) {
      const first = validate.errors?.[0];
      throw fail(`does not match ns.rule_pack.v1: ${first?.instancePath || '/'} ${first?.message ?? ''}`);
    }
    const pack = doc as RulePack;
    if (pack.framework !== named[1] || pack.version !== named[2])
      throw fail('framework or version differs from the name');
    if (pack.pack_id !== `ns:rule_pack:${pack.framework}`) throw fail('`pack_id` is not `ns:rule_pack:<framework>`');
    if (pack.rule_pack_id !== `ns:rule_pack:${pack.framework}:${pack.version}`)
      throw fail('`rule_pack_id` is not its own');
    if (pack.domain !== 'generic' || pack.rules.length > 0 || pack.tests.length > 0)
      throw fail('a compliance mapping is a `generic` pack without rules or tests');
    const ids = new Set<string>();
    for (const control of pack.controls) {
      if (ids.has(control.control_id)) throw fail(`control \`${control.control_id}\` appears twice`);
      ids.add(control.control_id);
    }
    const current = latest.get(pack.framework);
    if (!current || compareVersions(pack.version, current.version) > 0) latest.set(pack.framework, pack);
  }
  return new Map([...latest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

let cache: ReadonlyMap<string, RulePack> | undefined;

export function rulePacks(): ReadonlyMap<string, RulePack> {
  cache ??= readRulePackFolder();
  return cache;
}

/**
 * The serving rule pack of `framework`; otherwise `code` (`invalid_request` for a body field, `not_found` for a path)
 * naming `path` and the known frameworks.
 */
export function rulePackOf(framework: string, code: 'invalid_request' | 'not_found', path: string): RulePack {
  const pack = rulePacks().get(framework);
  if (pack) return pack;
  const known = [...rulePacks().keys()].map((f) => `\`${f}\``).join(', ');
  const message = `no rule pack for framework \`${framework}\`; known: ${known}`;
  throw new AarError(code, `${path}: ${message}`, { errors: [{ path, message }] });
}
