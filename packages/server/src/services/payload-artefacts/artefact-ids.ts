/**
 * Ids of payload artefacts (CONTRACT section 22): `ns:payload_artefact:<uuid>`, minted from the service's UUIDv7s
 * like every other minted id (core's MintedKind does not list it: kept here, as mandate ids are).
 */
import { fieldError } from '@aar/core';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PREFIX = 'ns:payload_artefact:';

export function mintArtefactId(uuid: string): string {
  return `${PREFIX}${uuid}`;
}

/** `ns:payload_artefact:<uuid>`, or 400 `invalid_id` naming `path`. */
export function parseArtefactId(value: unknown, path: string): string {
  if (typeof value !== 'string' || !value.startsWith(PREFIX) || !UUID.test(value.slice(PREFIX.length))) {
    throw fieldError('invalid_id', path, `must be an id of the form \`${PREFIX}<uuid>\``);
  }
  return value;
}

/** `ns:mandate:<uuid>` or `ns:allowance:<uuid>`, or 400 `invalid_id` naming `path`. */
export function parseMandateRef(value: unknown, path: string): string {
  const match = typeof value === 'string' ? /^ns:(mandate|allowance):(.+)$/.exec(value) : null;
  if (!match || !UUID.test(match[2]!)) {
    throw fieldError('invalid_id', path, 'must be an id of the form `ns:mandate:<uuid>` or `ns:allowance:<uuid>`');
  }
  return value as string;
}
