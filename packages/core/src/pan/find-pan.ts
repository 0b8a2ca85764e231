/**
 * Raw card numbers are never accepted (CONTRACT section 7, PCI DSS scope): a PAN is 12-19 digits passing Luhn.
 * Written by hand: no maintained library detects card numbers inside arbitrary JSON with a stated false-positive rule.
 * Attacker assumption: the value is a whole request body (or a header), of any shape and depth (walked with an
 * explicit stack), written by someone careless with card data, in any of the ways people write a card number:
 * - NFKC first, so full-width (`４１１１…`), mathematical, circled or superscript digits count as the digits they are;
 * - a run is digits with single separators between them: space, `-`, `.` or `_` (`4111.1111.1111.1111`,
 *   `4111_1111_1111_1111`); every span of consecutive groups in a run holding 12-19 digits is checked, so
 *   "4111 1111 1111 1111 12/27" (number and expiry) is still caught;
 * - a run touching letters counts (`card4111111111111111`, `ref4111111111111111x`): letters are no disguise.
 * To keep honest values from being refused at random, only these are skipped, each a shape a card number never has:
 * - our own ids (`ns:<kind>:<uuid>`) and labelled digests (`sha256:<hex>`, `sha-256=<hex>`, `md5:<hex>`…);
 * - a plain decimal number (`1718000000.123456`: one `.` between two digit groups, nothing else): each side alone;
 * - dotted IPv4 addresses (four groups of 0-255);
 * - and, except in free text, bare UUIDs (8-4-4-4-12 hex) and hex digests (a whole token of 32, 40, 56, 64, 96 or
 *   128 hex characters: MD5 to SHA-512), masked as a whole before the scan.
 * Free text (issue 26): a Luhn-valid run inside a hex-like token is a card number written next to hex letters
 * (`4111111111111111deadbeefdeadbeef`) as often as it is a digest, and no rule on the characters alone tells them
 * apart: about 0.2 % of random MD5s, 0.4 % of SHA-256s and 0.3 % of UUIDs hold a Luhn-valid run of 13-19 digits. So the
 * context decides. A string read as free text (`containsPan(text, { freeText: true })`; in findPan, a member whose name
 * says text: `title`, `description`, `*_name`, `note`, `reason`, …) has its bare UUIDs and hex tokens read like any
 * other characters; a digest or UUID there is refused about once in 300, which is the price of failing closed where
 * people write. Everywhere else (ids, digests, references, idempotency keys, URLs) a bare UUID or digest is skipped.
 * ISO timestamps pass by construction (their digit runs are shorter than 12), and so does every Luhn-invalid id.
 * Known gap: decimal digits of other scripts that NFKC leaves alone (Arabic-Indic, Devanagari, ...) are not read.
 * Nothing here ever puts the digits in an error or a message: no card number may reach a log.
 */
import { fieldError } from '../errors/aar-error.ts';
import { appendPointer } from '../json/json-pointer.ts';
import { luhnValid } from './luhn.ts';

const NON_ASCII = /[\u0080-\uffff]/;
/** The cheap gate: 12 digits with at most single separators between them; most strings stop here. */
const TWELVE_DIGITS = /[0-9](?:[ ._-]?[0-9]){11}/;
const UUID_PATTERN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** one of our ids: `ns:` and one or more kind segments (`ns:authority:grant:`), then a UUID */
const NS_UUID_ID =
  /(?<![0-9A-Za-z])ns:(?:[a-z_]+:)+[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9A-Za-z])/gi;
/** a hex digest named by its algorithm: `sha256:…`, `sha-256=…`, `SHA256: …`, `md5=…` */
const LABELLED_HEX_DIGEST =
  /(?<![0-9A-Za-z])(?:sha-?(?:1|224|256|384|512)|md5)[:=] ?:?[0-9A-Fa-f]{32,128}(?![0-9A-Za-z])/gi;
const HEX_TOKEN = /(?<![0-9A-Za-z])[0-9A-Fa-f]{32,128}(?![0-9A-Za-z])/g;
const DIGEST_HEX_LENGTHS: ReadonlySet<number> = new Set([32, 40, 56, 64, 96, 128]);
const IPV4 = /(?<![0-9.])(?:[0-9]{1,3}\.){3}[0-9]{1,3}(?![0-9]|\.[0-9])/g;
const DIGIT_RUN = /[0-9](?:[ ._-]?[0-9])*/g;
const SEPARATOR = /[ ._-]/;
const PLAIN_DECIMAL = /^[0-9]+\.[0-9]+$/;

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

function isIpv4(text: string): boolean {
  return text.split('.').every((octet) => Number(octet) <= 255);
}

/**
 * `text` with the shapes a card number never has replaced by letters: our ids, labelled digests and IPv4 addresses
 * always; bare UUIDs and digest-length hex tokens only outside free text (see the header).
 */
function maskNonPans(text: string, freeText: boolean): string {
  const labelled = text
    .replace(NS_UUID_ID, (id) => 'u'.repeat(id.length))
    .replace(LABELLED_HEX_DIGEST, (digest) =>
      DIGEST_HEX_LENGTHS.has(/[0-9A-Fa-f]+$/.exec(digest)![0].length) ? 'h'.repeat(digest.length) : digest,
    );
  const bare = freeText
    ? labelled
    : labelled
        .replace(UUID_PATTERN, (uuid) => 'u'.repeat(uuid.length))
        .replace(HEX_TOKEN, (hex) => (DIGEST_HEX_LENGTHS.has(hex.length) ? 'h'.repeat(hex.length) : hex));
  return bare.replace(IPV4, (ip) => (isIpv4(ip) ? 'i'.repeat(ip.length) : ip));
}

export interface PanReading {
  /**
   * Read `text` as free text (a title, a description, a name, a note): bare UUIDs and hex tokens are not skipped,
   * so a card number written next to hex letters is found. Default false: an id, digest or reference.
   */
  freeText?: boolean;
}

/** True if `text` holds a card number anywhere in it. */
export function containsPan(text: string, reading: PanReading = {}): boolean {
  const normalized = NON_ASCII.test(text) ? text.normalize('NFKC') : text;
  if (!TWELVE_DIGITS.test(normalized)) return false;
  const masked = maskNonPans(normalized, reading.freeText === true);
  for (const match of masked.matchAll(DIGIT_RUN)) {
    const run = match[0];
    if (run.length < 12) continue;
    if (PLAIN_DECIMAL.test(run)) {
      // a plain decimal's two sides are two numbers, not two groups of one
      if (run.split('.').some((side) => groupsArePan([side]))) return true;
    } else if (groupsArePan(run.split(SEPARATOR))) {
      return true;
    }
  }
  return false;
}

function isPanNumber(value: number): boolean {
  if (!Number.isInteger(value)) return false;
  const digits = String(Math.abs(value));
  return digits.length >= 12 && digits.length <= 19 && luhnValid(digits);
}

/**
 * Members whose strings are free text (read with `freeText`): what people write in, where a card number typed next
 * to hex letters must not pass for a digest. Matched on the member's name, or its last `_` word (`display_name`).
 */
const FREE_TEXT_MEMBER =
  /(?:^|_)(?:title|description|name|label|notes?|reason|summary|comments?|message|text|memo|remarks?|purpose|instructions?)$/i;

/** Whether strings under the member `name` (undefined: the top level, or an array's items there) are free text. */
export function isFreeTextMember(name: string | undefined): boolean {
  return name !== undefined && FREE_TEXT_MEMBER.test(name);
}

type Pending = [value: unknown, path: string, member: string | undefined];

/**
 * The JSON pointer of the first place in `value` holding a raw card number, or undefined.
 * For a card number used as an object key, the pointer of the object holding that key (the key itself must not
 * travel in an error). Keys of an object are checked before its values. A string is read as free text when the
 * nearest member holding it (through arrays) is a free-text member (isFreeTextMember).
 */
export function findPan(value: unknown): string | undefined {
  const stack: Pending[] = [[value, '', undefined]];
  const seen = new WeakSet<object>();
  while (stack.length > 0) {
    const [current, path, member] = stack.pop() as Pending;
    if (typeof current === 'string') {
      if (containsPan(current, { freeText: isFreeTextMember(member) })) return path;
    } else if (typeof current === 'number') {
      if (isPanNumber(current)) return path;
    } else if (typeof current === 'object' && current !== null && !seen.has(current)) {
      seen.add(current);
      const entries: Pending[] = [];
      if (Array.isArray(current)) {
        current.forEach((item, i) => entries.push([item, appendPointer(path, i), member]));
      } else {
        for (const [key, child] of Object.entries(current)) {
          if (containsPan(key)) return path;
          entries.push([child, appendPointer(path, key), key]);
        }
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i] as Pending);
    }
  }
  return undefined;
}

/**
 * `text` with every run of 12 or more digits (any script, single separators between them) starred: what may be put
 * in a path, a log line or a problem document once `text` passed or failed the detector.
 */
export function maskLongDigitRuns(text: string): string {
  return text.replace(/\p{Nd}(?:[\s._-]?\p{Nd}){11,}/gu, (run) => run.replace(/\p{Nd}/gu, '*'));
}

/** Throws `pan_refused` naming the path of the first card number in `value`; never names the number. */
export function assertNoPan(value: unknown): void {
  const path = findPan(value);
  if (path === undefined) return;
  // A key on the path passed the detector (a hex digest, say) but may still hold a long digit run: mask it.
  throw fieldError('pan_refused', maskLongDigitRuns(path), 'holds a card number; send a card token instead');
}
