/**
 * Walks a cursor-paginated list (`{ items, next_cursor }`, CONTRACT section 11) page after page, yielding items.
 * The cursor is opaque: it is only ever passed back. A page that repeats its cursor would loop forever, so it ends
 * the walk with an error instead (a service bug must not hang a client).
 */

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** `fetchPage(cursor)` reads one page; the first call gets `undefined`, or `startCursor` when given. */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  startCursor?: string,
): AsyncGenerator<T, void, undefined> {
  let cursor = startCursor;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    const next = page.next_cursor;
    if (next === null || next === undefined || next === '') return;
    if (seen.has(next)) throw new Error(`the service returned the cursor \`${next}\` twice`);
    seen.add(next);
    cursor = next;
  }
}
