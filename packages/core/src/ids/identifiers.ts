/**
 * Identifier forms of SPEC.md "Identifier forms" and CONTRACT section 1.
 * Attacker assumption: every id arrives from the network; parse, never trust. A parsed id is rebuilt in its
 * canonical form (aliases `ns:human:` / `ns:agent:` become `ns:entity:person:` / `ns:entity:agent:`).
 */
import { fieldError } from '../errors/aar-error.ts';

export const NS = 'ns';

/** The caller-chosen part of person, organisation, agent, merchant and card-token ids. */
export const LOCAL_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
/** A minted id: a UUID (v7 by construction; any version is accepted on input). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type EntityType = 'person' | 'organisation' | 'agent';
export const ENTITY_TYPES: readonly EntityType[] = ['person', 'organisation', 'agent'];

/** Kinds whose `<id>` the service mints as a UUIDv7. */
export type MintedKind =
  | 'authority:grant'
  | 'decision'
  | 'decision_map'
  | 'audit'
  | 'evidence-pack'
  | 'event'
  | 'approval'
  | 'token'
  | 'delegation'
  | 'bundle';

export function mintedId(kind: MintedKind, uuid: string): string {
  return `${NS}:${kind}:${uuid}`;
}

/** Parses `ns:<kind>:<uuid>`; throws `invalid_id` naming `path` otherwise. */
export function parseMintedId(kind: MintedKind, value: unknown, path: string): string {
  const prefix = `${NS}:${kind}:`;
  if (typeof value !== 'string' || !value.startsWith(prefix) || !UUID_PATTERN.test(value.slice(prefix.length))) {
    throw fieldError('invalid_id', path, `must be an id of the form \`${prefix}<uuid>\``);
  }
  return value;
}

export function isLocalId(value: unknown): value is string {
  return typeof value === 'string' && LOCAL_ID_PATTERN.test(value);
}

export function entityId(type: EntityType, local: string): string {
  return `${NS}:entity:${type}:${local}`;
}

export interface ParsedEntityId {
  type: EntityType;
  local: string;
  /** canonical `ns:entity:<type>:<local>` form */
  id: string;
}

/** Accepts `ns:entity:<type>:<id>` and the aliases `ns:human:<id>` (person) and `ns:agent:<id>`. */
export function tryParseEntityId(value: unknown): ParsedEntityId | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = value.split(':');
  let type: string | undefined;
  let local: string | undefined;
  if (parts.length === 4 && parts[0] === NS && parts[1] === 'entity') {
    type = parts[2];
    local = parts[3];
  } else if (parts.length === 3 && parts[0] === NS && (parts[1] === 'human' || parts[1] === 'agent')) {
    type = parts[1] === 'human' ? 'person' : 'agent';
    local = parts[2];
  }
  if (!type || !(ENTITY_TYPES as readonly string[]).includes(type) || !isLocalId(local)) return undefined;
  return { type: type as EntityType, local, id: entityId(type as EntityType, local) };
}

export function parseEntityId(
  value: unknown,
  path: string,
  allowed: readonly EntityType[] = ENTITY_TYPES,
): ParsedEntityId {
  const parsed = tryParseEntityId(value);
  if (!parsed || !allowed.includes(parsed.type)) {
    const forms = allowed.map((t) => `\`ns:entity:${t}:<id>\``).join(' or ');
    throw fieldError('invalid_id', path, `must be an entity id of the form ${forms}`);
  }
  return parsed;
}

export function cardTokenId(local: string): string {
  return `${NS}:card_token:${local}`;
}

export function cardCredentialId(local: string): string {
  return `${NS}:credential:card-token:${local}`;
}

/** Accepts both `ns:card_token:<id>` and `ns:credential:card-token:<id>`; returns the local id. */
const CARD_TOKEN_PREFIXES = [`${NS}:card_token:`, `${NS}:credential:card-token:`] as const;

export function tryParseCardTokenRef(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  for (const prefix of CARD_TOKEN_PREFIXES) {
    if (value.startsWith(prefix)) {
      const local = value.slice(prefix.length);
      return isLocalId(local) ? local : undefined;
    }
  }
  return undefined;
}

export function parseCardTokenRef(value: unknown, path: string): string {
  const local = tryParseCardTokenRef(value);
  if (local === undefined) {
    throw fieldError('invalid_id', path, 'must be `ns:card_token:<id>` or `ns:credential:card-token:<id>`');
  }
  return local;
}

/** Capabilities: `ns:capability:<family>:<action>`. */
export const CAPABILITY_PATTERN = /^ns:capability:[a-z0-9_]{1,64}:[a-z0-9_]{1,64}$/;
export const CARD_PURCHASE_CAPABILITY = 'ns:capability:payment_action:card_purchase';

export function keyId(name: string): string {
  return `${NS}:key:${name}`;
}
