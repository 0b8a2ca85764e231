/**
 * Reads the shipped policy content (packages/server/policy/{rule-packs,dictionaries,sector-packs}) and the JSON
 * Schemas of its three documents, for the policy-content tests. Strict read: a file that is not JSON fails the test
 * that reads it, never silently drops out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { DictionaryDocument, RulePackDocument, SectorPackDocument } from '@aar/core';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;

export const POLICY_FOLDER = new URL('../../policy/', import.meta.url);
export const COMPLIANCE_FOLDER = new URL('../../rule-packs/', import.meta.url);
const SCHEMA_FOLDER = new URL('../../schemas/', import.meta.url);

export interface ShippedFile<T> {
  /** file name without `.json` */
  name: string;
  file: string;
  doc: T;
}

function readFolder<T>(folder: URL): ShippedFile<T>[] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({
      name: file.slice(0, -'.json'.length),
      file,
      doc: JSON.parse(readFileSync(new URL(file, folder), 'utf8')) as T,
    }));
}

export const shippedRulePacks = (): ShippedFile<RulePackDocument>[] =>
  readFolder(new URL('rule-packs/', POLICY_FOLDER));
export const shippedDictionaries = (): ShippedFile<DictionaryDocument>[] =>
  readFolder(new URL('dictionaries/', POLICY_FOLDER));
export const shippedSectorPacks = (): ShippedFile<SectorPackDocument>[] =>
  readFolder(new URL('sector-packs/', POLICY_FOLDER));
export const complianceMappings = (): ShippedFile<RulePackDocument>[] => readFolder(COMPLIANCE_FOLDER);

/** The draft 2020-12 validator of `ns.<document>.v1`, compiled in strict mode like the server's catalogues. */
export function schemaValidator(document: 'rule_pack' | 'dictionary' | 'sector_pack'): ValidateFunction {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const schema = JSON.parse(readFileSync(new URL(`ns.${document}.v1.schema.json`, SCHEMA_FOLDER), 'utf8')) as object;
  return ajv.compile(schema);
}

/** `ns:dictionary:mcc@1.0.0` → `{ name: 'mcc', version: '1.0.0' }` */
export function parseRef(ref: string, kind: 'dictionary' | 'rule_pack'): { name: string; version: string } {
  const match = new RegExp(`^ns:${kind}:([a-z][a-z0-9_-]{1,62})@(\\d+\\.\\d+\\.\\d+)$`).exec(ref);
  if (!match) throw new Error(`not a ${kind} reference: ${ref}`);
  return { name: match[1]!, version: match[2]! };
}
