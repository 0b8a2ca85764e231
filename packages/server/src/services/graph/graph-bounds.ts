/**
 * The bounds every graph query takes (issue 30): `max_depth` (default 8, 1-16), `limit` (default 100, 1-1000) and an
 * opaque `cursor`. Attacker assumption: every value is caller-controlled text; each is parsed strictly and a value
 * out of range is refused with 400 naming the parameter, before any read.
 */
import { fieldError } from '@aar/core';
import { Type } from 'typebox';
import { decodeCursor, encodeCursor } from '../../routes/pagination.ts';

export const DEFAULT_MAX_DEPTH = 8;
export const MAX_MAX_DEPTH = 16;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface GraphBounds {
  maxDepth: number;
  limit: number;
  /** the `seq` (store order) after which the page starts; 0 for the first page */
  afterSeq: number;
  /** the cursor as given, or null */
  cursor: string | null;
}

/** The query members of every graph route (strings: validated here, so the error names the parameter). */
export const graphBoundsQuery = {
  max_depth: Type.Optional(
    Type.String({ maxLength: 8, description: `levels followed, 1-${MAX_MAX_DEPTH} (default 8)` }),
  ),
  limit: Type.Optional(Type.String({ maxLength: 8, description: `grants per page, 1-${MAX_LIMIT} (default 100)` })),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'next_cursor of the previous page' })),
};

export function parseGraphBounds(query: { max_depth?: string; limit?: string; cursor?: string }): GraphBounds {
  const maxDepth = wholeNumber(query.max_depth, DEFAULT_MAX_DEPTH, MAX_MAX_DEPTH, '/query/max_depth');
  const limit = wholeNumber(query.limit, DEFAULT_LIMIT, MAX_LIMIT, '/query/limit');
  const afterSeq = decodeCursor(query.cursor, '/query/cursor');
  return { maxDepth, limit, afterSeq, cursor: query.cursor === undefined || query.cursor === '' ? null : query.cursor };
}

/** rows fetched with `limit + 1`: the page, and the cursor of the next one (null on the last page) */
export function pageOf<R extends { seq: number }>(rows: R[], limit: number): { page: R[]; nextCursor: string | null } {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { page, nextCursor: more ? encodeCursor(page[page.length - 1]!.seq) : null };
}

function wholeNumber(text: string | undefined, fallback: number, max: number, path: string): number {
  if (text === undefined) return fallback;
  const value = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw fieldError('invalid_request', path, `must be a whole number from 1 to ${max}`);
  }
  return value;
}
