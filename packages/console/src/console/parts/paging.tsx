/**
 * Lists a page at a time over the API's cursor pagination (`limit`, `cursor` = the previous page's `next_cursor`),
 * with their filters in the URL. The API's cursors only go forward: "Previous" returns to the cursor it came from,
 * kept on a stack in memory. A changed filter starts again at the first page.
 * Invariant: a list page never holds more than its page size, so no list grows the page without bound (issue 26: one
 * conformance-kit run made the Grants page 69,728 px tall).
 */
import { useEffect, useState } from 'preact/hooks';
import { setQuery, useQuery } from '../router.ts';

export const PAGE_SIZE = 50;

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface Pages {
  /** the cursor of the page shown (undefined: the first) */
  cursor: string | undefined;
  /** 1 for the first page */
  number: number;
  next(cursor: string): void;
  previous(): void;
}

/** Cursor paging that starts again whenever `resetKey` (the filter, as text) changes. */
export function usePages(resetKey: string): Pages {
  const [state, setState] = useState<{ key: string; stack: string[] }>({ key: resetKey, stack: [] });
  const stack = state.key === resetKey ? state.stack : [];
  const top = () => scrollTo({ top: 0 });
  return {
    cursor: stack[stack.length - 1],
    number: stack.length + 1,
    next: (cursor) => {
      setState({ key: resetKey, stack: [...stack, cursor] });
      top();
    },
    previous: () => {
      setState({ key: resetKey, stack: stack.slice(0, -1) });
      top();
    },
  };
}

/** Previous / next page buttons under a list; `label` names the list ("grants") for screen readers. */
export function PageControls({ pages, page, label }: { pages: Pages; page: Page<unknown>; label: string }) {
  if (pages.number === 1 && page.next_cursor === null) return null;
  return (
    <nav class="pager" aria-label={`Pages of ${label}`}>
      <button
        type="button"
        class="secondary"
        disabled={pages.number === 1}
        onClick={pages.previous}
        aria-label={`Previous page of ${label}`}
      >
        Previous
      </button>
      <span class="muted" data-testid="page-number">
        Page {pages.number}
      </span>
      <button
        type="button"
        class="secondary"
        disabled={page.next_cursor === null}
        onClick={() => page.next_cursor !== null && pages.next(page.next_cursor)}
        aria-label={`Next page of ${label}`}
      >
        Next
      </button>
    </nav>
  );
}

export interface UrlFilter<K extends string> {
  /** the filter in force (from the URL) */
  applied: Record<K, string>;
  /** the applied filter as one text, a dependency for loads and a reset key for pages */
  key: string;
  /** what the controls hold before it is applied */
  draft: Record<K, string>;
  set(name: K, value: string): void;
  /** applies the draft, with `name` set to `value` first when given (a select applies as soon as it changes) */
  apply(name?: K, value?: string): void;
  clear(): void;
}

/**
 * A page's filter held in the URL's query under the names given (`keep` names other query members the page owns
 * and leaves as they are). Text fields apply on submit; selects may apply at once.
 */
export function useUrlFilter<K extends string>(names: readonly K[], keep: readonly string[] = []): UrlFilter<K> {
  const query = useQuery();
  const pick = (source: Record<string, string | undefined>) =>
    Object.fromEntries(names.map((n) => [n, source[n] ?? ''])) as Record<K, string>;
  const applied = pick(query);
  const key = JSON.stringify(applied);
  // what the controls hold while it differs from the URL; a changed URL (applied, Back, a link) replaces it
  const [draftState, setDraftState] = useState<{ key: string; draft: Record<K, string> } | undefined>();
  useEffect(() => setDraftState(undefined), [key]);
  const draft = draftState?.key === key ? draftState.draft : applied;
  const kept = Object.fromEntries(keep.map((n) => [n, query[n]]));
  const write = (values: Record<K, string>) => {
    setDraftState(undefined);
    setQuery({ ...kept, ...values });
  };
  return {
    applied,
    key,
    draft,
    set: (name, value) => setDraftState({ key, draft: { ...draft, [name]: value } }),
    apply: (name, value) => write(name === undefined ? draft : { ...draft, [name]: value ?? '' }),
    clear: () => write(pick({})),
  };
}
