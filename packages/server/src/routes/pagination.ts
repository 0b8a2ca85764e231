/**
 * Cursor pagination over a table's `seq` (insertion order). A cursor is opaque to clients: base64url of the last
 * seq they saw. Attacker assumption: cursors are caller-controlled; they are parsed strictly, never interpolated.
 */
import { fieldError } from '@aar/core';
import { Type, type TSchema } from 'typebox';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;
/** Exactly the page sizes pageRequest accepts, 1 to MAX_PAGE_SIZE (query values are strings: no coercion). */
export const PAGE_SIZE_PATTERN = '^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$';

/** the query members every list endpoint takes; spread them into the endpoint's own query object */
export const pageQueryProperties = {
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: `page size, 1-${MAX_PAGE_SIZE}` })),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'next_cursor of the previous page' })),
};

export const PageQuery = Type.Object(pageQueryProperties, { additionalProperties: false });

export interface PageRequest {
  limit: number;
  afterSeq: number;
}

export function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined, path = '/query/cursor'): number {
  if (cursor === undefined || cursor === '') return 0;
  const text = /^[A-Za-z0-9_-]{2,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^s(\d{1,15})$/.exec(text);
  if (!match) throw fieldError('invalid_request', path, 'is not a cursor this service issued');
  return Number(match[1]);
}

export function pageRequest(query: { limit?: string | undefined; cursor?: string | undefined }): PageRequest {
  return { limit: pageSize(query.limit), afterSeq: decodeCursor(query.cursor) };
}

/** The `limit` query value as a page size; 400 naming `/query/limit` outside 1..MAX_PAGE_SIZE. */
export function pageSize(limit: string | undefined): number {
  const size = limit === undefined ? DEFAULT_PAGE_SIZE : Number(limit);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw fieldError('invalid_request', '/query/limit', `must be between 1 and ${MAX_PAGE_SIZE}`);
  }
  return size;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** rows must be fetched with `limit + 1` to know whether another page exists */
export function toPage<R extends { seq: number }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown[shown.length - 1];
  return { items: shown.map(map), next_cursor: more && last ? encodeCursor(last.seq) : null };
}

export const pageSchema = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()]) });
