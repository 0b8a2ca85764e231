/**
 * The ids of memory records and their tombstones (CONTRACT section 22): `ns:memory_record:<uuid>` and
 * `ns:memory_tombstone:<uuid>`, minted from the service's UUIDv7s (core's MintedKind does not list them: kept here).
 */
import { fieldError } from '@aar/core';

export type MemoryIdKind = 'memory_record' | 'memory_tombstone';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function mintMemoryId(kind: MemoryIdKind, uuid: string): string {
  return `ns:${kind}:${uuid}`;
}

/** `ns:<kind>:<uuid>`, or 400 `invalid_id` naming `path`. */
export function parseMemoryId(kind: MemoryIdKind, value: unknown, path: string): string {
  const prefix = `ns:${kind}:`;
  if (typeof value !== 'string' || !value.startsWith(prefix) || !UUID.test(value.slice(prefix.length))) {
    throw fieldError('invalid_id', path, `must be an id of the form \`${prefix}<uuid>\``);
  }
  return value;
}
