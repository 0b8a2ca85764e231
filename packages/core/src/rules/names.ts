/**
 * Names and references of the policy documents (CONTRACT section 19): `ns:rule_pack:<name>`,
 * `ns:dictionary:<name>`, `ns:sector_pack:<name>`, references `<id>@<semver>`, rule reasons `<pack name>.<code>`.
 */

/** A policy document's name: lower case, 2-63 characters. */
export const POLICY_NAME = /^[a-z][a-z0-9_-]{1,62}$/;
/** The code part of a rule reason. */
export const REASON_CODE_PART = /^[a-z][a-z0-9_]{0,62}$/;
/** Semantic Versioning 2.0.0 (pre-release and build metadata allowed). */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export const RULE_PACK_PREFIX = 'ns:rule_pack:';
export const DICTIONARY_PREFIX = 'ns:dictionary:';
export const SECTOR_PACK_PREFIX = 'ns:sector_pack:';

/** The `<name>` of `<prefix><name>`, or undefined when `id` is not such an id. */
export function nameOfId(id: unknown, prefix: string): string | undefined {
  if (typeof id !== 'string' || !id.startsWith(prefix)) return undefined;
  const name = id.slice(prefix.length);
  return POLICY_NAME.test(name) ? name : undefined;
}

/** `<prefix><name>@<semver>` parsed, or undefined. */
export function parseReference(
  ref: unknown,
  prefix: string,
): { id: string; name: string; version: string } | undefined {
  if (typeof ref !== 'string') return undefined;
  const at = ref.lastIndexOf('@');
  if (at < 0) return undefined;
  const id = ref.slice(0, at);
  const version = ref.slice(at + 1);
  const name = nameOfId(id, prefix);
  return name !== undefined && SEMVER.test(version) ? { id, name, version } : undefined;
}

/** The pack name of a rule pack document (from its `pack_id`), or undefined. */
export function packNameOf(doc: { pack_id?: unknown }): string | undefined {
  return nameOfId(doc.pack_id, RULE_PACK_PREFIX);
}
