/**
 * Issue 26: a card number written next to hex letters (`4111111111111111deadbeefdeadbeef`) passed for a digest or a
 * UUID and was accepted. In free text it is read as what it is; where ids and digests go, real UUIDs and digests are
 * never refused, and our own ids (`ns:<kind>:<uuid>`), labelled digests and base64url digests never are anywhere.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsPan, findPan, isFreeTextMember } from '../../src/pan/find-pan.ts';
import { luhnValid } from '../../src/pan/luhn.ts';

const REPORTED = [
  '4111111111111111deadbeefdeadbeef',
  'deadbeefdeadbeef4111111111111111',
  '5500005555555559aaaaaaaaaaaaaaaa',
  '4111111111111111deadbeefdeadbeefdeadbeef', // 40: a SHA-1's length
  '41111111-1111-1111-aaaa-aaaaaaaaaaaa', // UUID-shaped
];

/** Luhn-valid runs of 13-19 digits. */
const pan = fc
  .tuple(fc.integer({ min: 12, max: 18 }), fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }))
  .map(([length, n]) => {
    const body = n.toString().padStart(18, '0').slice(0, length);
    for (let check = 0; check < 10; check++) if (luhnValid(body + check)) return body + check;
    throw new Error('unreachable');
  });
const hex = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${min},${max}}$`));
const hexLetter = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'A', 'F');

/**
 * A card number embedded in a hex-like token: hex on either side, a hex letter (or the token's edge) touching it,
 * optionally cut into the 8-4-4-4-12 groups of a UUID.
 */
const panInHexToken = fc
  .record({
    digits: pan,
    before: fc.oneof(
      fc.constant(''),
      fc.tuple(hex(0, 24), hexLetter).map(([h, l]) => h + l),
    ),
    after: fc.oneof(
      fc.constant(''),
      fc.tuple(hexLetter, hex(0, 24)).map(([l, h]) => l + h),
    ),
    uuidShaped: fc.boolean(),
    fill: hex(32, 32),
  })
  .map(({ digits, before, after, uuidShaped, fill }) => {
    const token = `${before}${digits}${after}`;
    if (!uuidShaped || token.length > 32) return token;
    // pad to 32 with a letter between, then cut as a UUID
    const padded = (token + 'e' + fill).slice(0, 32);
    return `${padded.slice(0, 8)}-${padded.slice(8, 12)}-${padded.slice(12, 16)}-${padded.slice(16, 20)}-${padded.slice(20)}`;
  });

describe('a card number next to hex letters', () => {
  it.each(REPORTED)('%s is found in a listing title and in free text', (text) => {
    expect(findPan({ title: text })).toBe('/title');
    expect(findPan({ listing: { description: `see ${text}` } })).toBe('/listing/description');
    expect(containsPan(text, { freeText: true })).toBe(true);
  });

  it('any Luhn-valid run of 13-19 digits embedded in a hex-like token is found in free text', () => {
    fc.assert(
      fc.property(
        panInHexToken,
        fc.constantFrom('title', 'description', 'display_name', 'note', 'reason', 'publisher_name', 'label'),
        (token, member) => {
          expect(findPan({ [member]: token })).toBe(`/${member}`);
          expect(findPan({ [member]: [`ref ${token}.`] })).toBe(`/${member}/0`);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('real UUIDs and digests are never refused where ids and digests go', () => {
  const realUuid = fc.oneof(
    fc.uuid(),
    fc.constant(null).map(() => randomUUID()),
  );
  const realDigest = fc.oneof(
    fc
      .constantFrom('md5', 'sha1', 'sha256', 'sha512')
      .map((alg) => createHash(alg).update(randomBytes(16)).digest('hex')),
    fc.constant(null).map(() => createHash('sha256').update(randomBytes(16)).digest('base64url')),
    fc.constant(null).map(() => createHash('sha256').update(randomBytes(16)).digest('base64')),
  );

  it('as the value of an id, uuid, digest or reference member, and as a bare string', () => {
    fc.assert(
      fc.property(
        fc.oneof(realUuid, realDigest),
        fc.constantFrom('id', 'event_id', 'uuid', 'sha256', 'digest', 'hash', 'request_id', 'idempotency_key', 'v'),
        (value, member) => {
          expect(findPan({ [member]: value })).toBeUndefined();
          expect(findPan({ refs: [{ [member]: value }] })).toBeUndefined();
          expect(containsPan(value)).toBe(false);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('our ids, labelled hex digests and base64url digests: in free text too', () => {
    const ours = fc.oneof(
      realUuid.map((u) => `ns:decision:${u}`),
      realUuid.map((u) => `ns:authority:grant:${u}`),
      realUuid.map((u) => `ns:entity:agent:${u}`),
      fc.constant(null).map(() => `sha256:${createHash('sha256').update(randomBytes(16)).digest('hex')}`),
      fc.constant(null).map(() => `sha-256=${createHash('sha256').update(randomBytes(16)).digest('hex')}`),
      fc.constant(null).map(() => `md5=${createHash('md5').update(randomBytes(16)).digest('hex')}`),
      fc.constant(null).map(() => createHash('sha256').update(randomBytes(16)).digest('base64url')),
    );
    fc.assert(
      fc.property(ours, fc.constantFrom('title', 'description', 'note'), (value, member) => {
        expect(findPan({ [member]: `decided by ${value}, see there` })).toBeUndefined();
        expect(containsPan(value, { freeText: true })).toBe(false);
      }),
      { numRuns: 20_000 },
    );
  });

  it('a labelled digest of a digest length only: a card number with a label and no digest length is found', () => {
    expect(containsPan('sha256:4111111111111111deadbeef', { freeText: true })).toBe(true);
  });
});

describe('which members are free text', () => {
  it.each(['title', 'description', 'display_name', 'publisher_name', 'note', 'notes', 'reason', 'label', 'purpose'])(
    '%s is',
    (name) => expect(isFreeTextMember(name)).toBe(true),
  );
  it.each(['id', 'event_id', 'sha256', 'digest', 'url', 'href', 'token', 'nonce', 'v', undefined])(
    '%s is not',
    (name) => expect(isFreeTextMember(name)).toBe(false),
  );
});
