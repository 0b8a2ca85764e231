/**
 * Structure of an `ns.sector_pack.v1` document (CONTRACT section 19): `ns:sector_pack:<name>`, version, title,
 * sector, rule packs `<pack_id>@<version>`, scope templates `{ name, scope }`, dictionaries. Existence of the packs and
 * dictionaries is checked against `known` when the caller passes it. Never throws.
 */
import { appendPointer } from '../json/json-pointer.ts';
import { Problems, isRecord } from './document-checks.ts';
import { RULE_PACK_PREFIX, SECTOR_PACK_PREFIX, parseReference } from './names.ts';
import { MAX_PACK_BYTES, type RuleProblem } from './profile.ts';
import { SECTOR_PACK_SCHEMA } from './types.ts';
import { checkDictionaryRefs, type KnownPolicyTerms } from './validate-rule-pack.ts';

const MEMBERS: ReadonlySet<string> = new Set([
  'schema_version',
  'sector_pack_id',
  'version',
  'title',
  'sector',
  'rule_packs',
  'scope_templates',
  'dictionaries',
  'signature',
]);

export function validateSectorPack(input: unknown, known: KnownPolicyTerms = {}): RuleProblem[] {
  const p = new Problems();
  const { doc } = p.documentHead(input, {
    what: 'a sector pack',
    maxBytes: MAX_PACK_BYTES,
    members: MEMBERS,
    schema: SECTOR_PACK_SCHEMA,
    idMember: 'sector_pack_id',
    prefix: SECTOR_PACK_PREFIX,
  });
  if (!doc) return p.list;
  p.text(doc, 'title', '');
  p.text(doc, 'sector', '');
  const packs = p.array(doc, 'rule_packs', '');
  const names = new Set<string>();
  packs?.forEach((ref, i) => {
    const at = `/rule_packs/${i}`;
    const parsed = parseReference(ref, RULE_PACK_PREFIX);
    if (!parsed) return p.add(at, 'must be "ns:rule_pack:<name>@<version>"');
    // one version per pack: two would activate the same rules twice
    if (names.has(parsed.name)) return p.add(at, `rule pack ${parsed.name} is listed twice`);
    names.add(parsed.name);
    if (known.rulePacks && !known.rulePacks.has(ref as string)) p.add(at, `unknown rule pack ${String(ref)}`);
  });
  const templates = p.array(doc, 'scope_templates', '');
  const templateNames = new Set<string>();
  templates?.forEach((template, i) => {
    const at = `/scope_templates/${i}`;
    if (!isRecord(template)) return p.add(at, 'a scope template must be an object { name, scope }');
    p.onlyMembers(template, new Set(['name', 'scope']), at);
    const name = p.text(template, 'name', at);
    if (name !== undefined) {
      if (templateNames.has(name)) p.add(`${at}/name`, `scope template ${name} is named twice`);
      templateNames.add(name);
    }
    if (!isRecord(template.scope)) p.add(appendPointer(at, 'scope'), 'scope must be an object');
  });
  checkDictionaryRefs(p, doc, '', known);
  if (doc.signature !== undefined && !isRecord(doc.signature)) p.add('/signature', 'signature must be an object');
  return p.list;
}
