/**
 * Structure of an `ns.dictionary.v1` document (CONTRACT section 19): `ns:dictionary:<name>`, a semantic version,
 * title, source, and terms `{ code, label, ...attributes }` with unique codes. Returns every problem with its pointer;
 * never throws.
 */
import { Problems, isRecord, jsonByteLength } from './document-checks.ts';
import { DICTIONARY_PREFIX, SEMVER, nameOfId } from './names.ts';
import type { RuleProblem } from './profile.ts';
import { DICTIONARY_SCHEMA } from './types.ts';

/** A dictionary is data a rule reads whole (`dict.<name>.codes`): bounded like a pack, with room for ISO 18245. */
export const MAX_DICTIONARY_BYTES = 1024 * 1024;
/** A term code: readable by `var` (`dict.mcc.terms.5411`) when it has no dot; event types and ids carry dots. */
export const TERM_CODE = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;

const MEMBERS: ReadonlySet<string> = new Set([
  'schema_version',
  'dictionary_id',
  'version',
  'title',
  'source',
  'terms',
  'signature',
]);

export function validateDictionary(doc: unknown): RuleProblem[] {
  const p = new Problems();
  if (!isRecord(doc)) {
    p.add('', 'a dictionary must be a JSON object');
    return p.list;
  }
  const bytes = jsonByteLength(doc);
  if (bytes === undefined) p.add('', 'the document is not serializable JSON');
  else if (bytes > MAX_DICTIONARY_BYTES)
    p.add('', `the document is ${bytes} bytes, at most ${MAX_DICTIONARY_BYTES} allowed`);
  p.onlyMembers(doc, MEMBERS, '');
  if (doc.schema_version !== DICTIONARY_SCHEMA)
    p.add('/schema_version', `schema_version must be "${DICTIONARY_SCHEMA}"`);
  const id = p.text(doc, 'dictionary_id', '');
  if (id !== undefined && nameOfId(id, DICTIONARY_PREFIX) === undefined) {
    p.add(
      '/dictionary_id',
      'dictionary_id must be "ns:dictionary:<name>" with a name matching ^[a-z][a-z0-9_-]{1,62}$',
    );
  }
  p.text(doc, 'version', '', SEMVER, 'a semantic version (1.0.0)');
  p.text(doc, 'title', '');
  p.text(doc, 'source', '');
  const terms = p.array(doc, 'terms', '');
  if (terms?.length === 0) p.add('/terms', 'a dictionary holds at least one term');
  const codes = new Set<string>();
  terms?.forEach((term, i) => {
    const at = `/terms/${i}`;
    if (!isRecord(term)) return p.add(at, 'a term must be an object { code, label, ...attributes }');
    const code = p.text(term, 'code', at, TERM_CODE, 'a code matching ^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$');
    p.text(term, 'label', at);
    if (code === undefined) return;
    if (codes.has(code)) p.add(`${at}/code`, `term ${code} is listed twice`);
    codes.add(code);
  });
  if (doc.signature !== undefined && !isRecord(doc.signature)) p.add('/signature', 'signature must be an object');
  return p.list;
}
