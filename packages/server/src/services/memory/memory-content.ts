/**
 * The content of a memory record: bounded, free of card numbers, bound to the signed record by a salted digest.
 * - Size: the RFC 8785 text of the content is at most MAX_CONTENT_BYTES (400 naming `/content` beyond).
 * - Card numbers (CONTRACT section 7): the JSON reader already refuses a card number anywhere in a body; content is
 *   what an agent remembers, i.e. free text, so every string in it is read again as free text (a card number next to
 *   hex letters is not mistaken for a digest) and every key too: 400 `pan_refused` naming the path, never the number.
 *   Nothing is stored, and the refusal names only the (masked) path, so nothing of it reaches a log.
 * - Digest: `content_digest = base64url(SHA-256(RFC 8785 of { "content": <content>, "salt": <salt> }))`, the salt 32
 *   random bytes (base64url) kept beside the content and purged with it. Attacker assumption: someone holding a
 *   purged record's tombstone (or its record) and guessing low-entropy content ("yes", a name) must not be able to
 *   confirm the guess: without the salt the digest tells nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { canonicalJson, containsPan, fieldError, maskLongDigitRuns } from '@aar/core';

export const MAX_CONTENT_BYTES = 16 * 1024;

export interface PreparedContent {
  /** RFC 8785 text of the content */
  text: string;
  salt: string;
  digest: string;
  bytes: number;
}

export function prepareContent(content: unknown): PreparedContent {
  if (content === null || content === undefined) throw fieldError('invalid_request', '/content', 'is required');
  refuseCardNumbers(content, '/content');
  const text = canonicalJson(content);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_CONTENT_BYTES) {
    throw fieldError('invalid_request', '/content', `is ${bytes} bytes as RFC 8785 JSON; at most ${MAX_CONTENT_BYTES}`);
  }
  const salt = randomBytes(32).toString('base64url');
  return { text, salt, digest: contentDigest(content, salt), bytes };
}

export function contentDigest(content: unknown, salt: string): string {
  return createHash('sha256').update(canonicalJson({ content, salt }), 'utf8').digest('base64url');
}

/** base64url SHA-256 of a text (a record's or tombstone's RFC 8785 form) */
export function textDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

function pointer(base: string, key: string | number): string {
  return `${base}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Iterative walk (depth is already bounded by the strict JSON reader); the first card number found is refused. */
function refuseCardNumbers(value: unknown, base: string): void {
  const stack: Array<[unknown, string]> = [[value, base]];
  while (stack.length > 0) {
    const [current, path] = stack.pop() as [unknown, string];
    if (typeof current === 'string') {
      if (containsPan(current, { freeText: true })) throw panRefused(path);
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push([item, pointer(path, i)]));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        if (containsPan(key, { freeText: true })) throw panRefused(path);
        stack.push([child, pointer(path, key)]);
      }
    }
  }
}

function panRefused(path: string) {
  return fieldError('pan_refused', maskLongDigitRuns(path), 'holds a card number; memory never keeps one');
}
