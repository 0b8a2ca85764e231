/**
 * Structure of an `ns.dictionary.v1` document (CONTRACT section 19): `ns:dictionary:<name>`, a semantic version,
 * title, source, and terms `{ code, label, ...attributes }` with unique codes. Returns every problem with its pointer;
 * never throws.
 */
import { Problems, isRecord } from './document-checks.ts';
import { DICTIONARY_PREFIX } from './names.ts';
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

export function validateDictionary(input: unknown): RuleProblem[] {
  const p = new Problems();
  const { doc } = p.documentHead(input, {
    what: 'a dictionary',
    maxBytes: MAX_DICTIONARY_BYTES,
    members: MEMBERS,
    schema: DICTIONARY_SCHEMA,
    idMember: 'dictionary_id',
    prefix: DICTIONARY_PREFIX,
  });
  if (!doc) return p.list;
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
