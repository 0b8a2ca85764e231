/**
 * The console's API client. The bearer token lives only in this closure: never in localStorage, sessionStorage, a
 * cookie or a URL, so closing or reloading the tab signs out (SECURITY.md: a token in storage outlives the session
 * and is readable by any script of the origin). Requests are same-origin, carry no cookies and no referrer.
 * Every POST carries a fresh Idempotency-Key, so a retried click can never act twice.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${status} ${code}: ${detail}`);
  }
}

export interface ApiClient {
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
}

/** `onUnauthenticated` runs when the token is refused (revoked meanwhile): the console then signs out. */
export function createApiClient(token: string, onUnauthenticated: () => void = () => undefined): ApiClient {
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (method === 'POST') {
      headers['idempotency-key'] = crypto.randomUUID();
      if (body !== undefined) headers['content-type'] = 'application/json';
    }
    const res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      cache: 'no-store',
    });
    const text = await res.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!res.ok) {
      if (res.status === 401) onUnauthenticated();
      const problem = (parsed ?? {}) as { code?: string; detail?: string; title?: string };
      throw new ApiError(res.status, problem.code ?? 'error', problem.detail ?? problem.title ?? res.statusText);
    }
    return parsed as T;
  };
  return {
    get: (path, query) => call('GET', withQuery(path, query)),
    post: (path, body) => call('POST', path, body),
  };
}

export function withQuery(path: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Reads every page of a cursor-paginated list, up to `max` items (the console shows bounded lists). */
export async function readAll<T>(
  api: ApiClient,
  path: string,
  query: Record<string, string | undefined> = {},
  max = 2000,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.get<{ items: T[]; next_cursor: string | null }>(path, { ...query, limit: '500', cursor });
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined && items.length < max);
  return items.slice(0, max);
}
