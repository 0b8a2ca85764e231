/**
 * Names, ids and references of policy content (CONTRACT section 19, DESIGN-27 section 3). A pack is named
 * `<name>` and identified `ns:rule_pack:<name>`; a dictionary `ns:dictionary:<name>`; a sector pack
 * `ns:sector_pack:<name>`; references carry a version: `ns:dictionary:<name>@<version>`, `<pack_id>@<version>`.
 * Attacker assumption: every name in a path or a document is the caller's; parse, never trust.
 */
import { fieldError, POLICY_NAME, SEMVER } from '@aar/core';

export type PolicyKind = 'rule_pack' | 'dictionary' | 'sector_pack';

/** semver 2.0.0 (core's), at most 120 characters (the events' pattern) */
const isVersion = (v: string) => v.length <= 120 && SEMVER.test(v);

export const idPrefix = (kind: PolicyKind): string => `ns:${kind}:`;

export function policyId(kind: PolicyKind, name: string): string {
  return `${idPrefix(kind)}${name}`;
}

/** The name of `ns:<kind>:<name>`, or undefined. */
export function nameOfId(kind: PolicyKind, id: unknown): string | undefined {
  if (typeof id !== 'string' || !id.startsWith(idPrefix(kind))) return undefined;
  const name = id.slice(idPrefix(kind).length);
  return POLICY_NAME.test(name) ? name : undefined;
}

/** A `{name}` path parameter: the name, or the whole id (CONTRACT section 19). 404 for anything else. */
export function nameParam(kind: PolicyKind, raw: string, pointer = '/params/name'): string {
  const name = raw.startsWith(idPrefix(kind)) ? raw.slice(idPrefix(kind).length) : raw;
  if (!POLICY_NAME.test(name))
    throw fieldError('invalid_id', pointer, `\`${raw}\` is no ${kind.replace('_', ' ')} name`);
  return name;
}

export function versionParam(raw: string, pointer = '/params/version'): string {
  if (!isVersion(raw)) throw fieldError('invalid_id', pointer, `\`${raw}\` is no semver version`);
  return raw;
}

export interface PolicyRef {
  name: string;
  version: string;
}

/** `ns:<kind>:<name>@<version>`, or undefined. */
export function parseRef(kind: PolicyKind, ref: unknown): PolicyRef | undefined {
  if (typeof ref !== 'string') return undefined;
  const at = ref.lastIndexOf('@');
  if (at < 0) return undefined;
  const name = nameOfId(kind, ref.slice(0, at));
  const version = ref.slice(at + 1);
  return name !== undefined && isVersion(version) ? { name, version } : undefined;
}

export const refOf = (kind: PolicyKind, name: string, version: string): string => `${policyId(kind, name)}@${version}`;

const ACTIVATION_ID = /^ns:rule_activation:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const activationId = (uuid: string): string => `ns:rule_activation:${uuid}`;

/** `ns:rule_activation:<uuid>`, or the bare uuid; `invalid_id` otherwise. */
export function activationIdParam(raw: string, pointer = '/params/id'): string {
  const id = raw.startsWith('ns:rule_activation:') ? raw : `ns:rule_activation:${raw}`;
  if (!ACTIVATION_ID.test(id))
    throw fieldError('invalid_id', pointer, `\`${raw}\` is no \`ns:rule_activation:<uuid>\``);
  return id;
}
