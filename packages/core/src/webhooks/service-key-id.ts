/**
 * The service's key ids are `ns:key:<name>` (CONTRACT section 4). A webhook verifier refuses any other form before
 * any lookup, so a path-like or oversized id (`../x`, `ns:key:/etc/passwd`) never reaches a resolver that might,
 * against advice, read files or URLs.
 */
import { LOCAL_ID_PATTERN, NS } from '../ids/identifiers.ts';

const PREFIX = `${NS}:key:`;

export function isServiceKeyId(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX) && LOCAL_ID_PATTERN.test(value.slice(PREFIX.length));
}
