/**
 * The ids of mandates and allowances (CONTRACT section 21): `ns:mandate:<uuid>` and `ns:allowance:<uuid>`, minted
 * from the service's UUIDv7s like every other minted id (core's MintedKind does not list them: kept here).
 */
import { fieldError } from '@aar/core';

export type MandateKind = 'mandate' | 'allowance';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function mintMandateId(kind: MandateKind, uuid: string): string {
  return `ns:${kind}:${uuid}`;
}

/** `ns:<kind>:<uuid>`, or 400 `invalid_id` naming `path`. */
export function parseMandateId(kind: MandateKind, value: unknown, path: string): string {
  const prefix = `ns:${kind}:`;
  if (typeof value !== 'string' || !value.startsWith(prefix) || !UUID.test(value.slice(prefix.length))) {
    throw fieldError('invalid_id', path, `must be an id of the form \`${prefix}<uuid>\``);
  }
  return value;
}
