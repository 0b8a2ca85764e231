/**
 * An entity's `time_zone` (CONTRACT section 19: rules read `facts.local_time` in the principal's time zone): an IANA
 * zone name the runtime's Intl knows, stored in the spelling Intl resolves it to (`europe/paris` -> `Europe/Paris`),
 * so the same zone is always the same string in the row, its creation event and every decision's local time.
 * Offsets (`+01:00`) and abbreviations that are not IANA names are refused.
 */
import { fieldError } from '@aar/core';

const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/** The zone's canonical spelling; throws a 400 naming `pointer` for anything that is not an IANA zone. */
export function parseTimeZone(value: string, pointer: string): string {
  if (value.length > 64 || !IANA_NAME.test(value)) {
    throw fieldError('invalid_request', pointer, 'must be an IANA time zone name such as `Europe/Paris`');
  }
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw fieldError('invalid_request', pointer, `\`${value}\` is not a time zone this service knows`);
  }
}
