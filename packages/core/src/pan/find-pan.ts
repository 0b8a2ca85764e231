/**
 * Raw card numbers are never accepted (CONTRACT section 7, PCI DSS scope): a PAN is 12-19 digits passing Luhn.
 * Attacker assumption: the value is a whole request body, of any shape and depth (walked with an explicit stack).
 * The detector errs towards refusing, with three exceptions to keep honest ids from being refused at random:
 * - a digit group touching an ASCII letter is part of a word or hex string (hashes, `ns:` ids), not a card number;
 * - UUIDs (8-4-4-4-12 hex) are skipped as a whole;
 * - ISO timestamps pass by construction: their digit runs are shorter than 12.
 * A run is digits with single spaces or dashes between them; every span of consecutive groups in a run holding
 * 12-19 digits is checked, so "4111 1111 1111 1111 12/27" (number and expiry) is still caught.
 * Nothing here ever puts the digits in an error or a message: no card number may reach a log.
 */
import { fieldError } from '../errors/aar-error.ts';
import { appendPointer } from '../json/json-pointer.ts';
import { luhnValid } from './luhn.ts';

const UUID_PATTERN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const DIGIT_RUN = /[0-9](?:[ -]?[0-9])*/g;
const LETTER = /[A-Za-z]/;

function groupsArePan(groups: readonly string[]): boolean {
  for (let start = 0; start < groups.length; start++) {
    let joined = '';
    for (let end = start; end < groups.length && joined.length < 19; end++) {
      joined += groups[end];
      if (joined.length >= 12 && joined.length <= 19 && luhnValid(joined)) return true;
    }
  }
  return false;
}

/** True if `text` holds a card number anywhere in it. */
export function containsPan(text: string): boolean {
  if (!/[0-9]{4}/.test(text)) return false;
  const masked = text.replace(UUID_PATTERN, (uuid) => 'u'.repeat(uuid.length));
  for (const match of masked.matchAll(DIGIT_RUN)) {
    const start = match.index;
    const end = start + match[0].length;
    const groups = match[0].split(/[ -]/);
    // A group glued to a letter belongs to a word: split the run there and check the rest.
    if (start > 0 && LETTER.test(masked[start - 1] as string)) groups[0] = '';
    if (end < masked.length && LETTER.test(masked[end] as string)) groups[groups.length - 1] = '';
    if (splitOnEmpty(groups).some(groupsArePan)) return true;
  }
  return false;
}

function splitOnEmpty(groups: readonly string[]): string[][] {
  const parts: string[][] = [[]];
  for (const group of groups) {
    if (group === '') parts.push([]);
    else (parts.at(-1) as string[]).push(group);
  }
  return parts;
}

function isPanNumber(value: number): boolean {
  if (!Number.isInteger(value)) return false;
  const digits = String(Math.abs(value));
  return digits.length >= 12 && digits.length <= 19 && luhnValid(digits);
}

/**
 * The JSON pointer of the first place in `value` holding a raw card number, or undefined.
 * For a card number used as an object key, the pointer of the object holding that key (the key itself must not
 * travel in an error). Keys of an object are checked before its values.
 */
export function findPan(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  const seen = new WeakSet<object>();
  while (stack.length > 0) {
    const [current, path] = stack.pop() as [unknown, string];
    if (typeof current === 'string') {
      if (containsPan(current)) return path;
    } else if (typeof current === 'number') {
      if (isPanNumber(current)) return path;
    } else if (typeof current === 'object' && current !== null && !seen.has(current)) {
      seen.add(current);
      const entries: [unknown, string][] = [];
      if (Array.isArray(current)) {
        current.forEach((item, i) => entries.push([item, appendPointer(path, i)]));
      } else {
        for (const [key, member] of Object.entries(current)) {
          if (containsPan(key)) return path;
          entries.push([member, appendPointer(path, key)]);
        }
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i] as [unknown, string]);
    }
  }
  return undefined;
}

/** Throws `pan_refused` naming the path of the first card number in `value`; never names the number. */
export function assertNoPan(value: unknown): void {
  const path = findPan(value);
  if (path === undefined) return;
  // A key on the path passed the detector (say, glued to letters) but may still hold a long digit run: mask it.
  const safePath = path.replace(/[0-9](?:[ -]?[0-9]){11,}/g, (run) => run.replace(/[0-9]/g, '*'));
  throw fieldError('pan_refused', safePath, 'holds a card number; send a card token instead');
}
