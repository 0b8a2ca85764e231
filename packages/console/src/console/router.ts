/**
 * Hash routes (`#/grants`, `#/decisions/<id>`): the console is static files with one index.html, so the server needs
 * no fallback route, and a reload keeps the page (though not the token, which lives in memory only). A page's filters
 * ride in the hash's query (`#/grants?state=revoked&agent=shopper-1`), so a reload or a shared link keeps them too.
 * The token never goes into the hash: only what a page's filter controls hold.
 */
import { useEffect, useState } from 'preact/hooks';

function hashParts(): { path: string; query: string } {
  const hash = location.hash.replace(/^#\/?/, '');
  const at = hash.indexOf('?');
  return at === -1 ? { path: hash, query: '' } : { path: hash.slice(0, at), query: hash.slice(at + 1) };
}

export function currentRoute(): string[] {
  const { path } = hashParts();
  return path === '' ? ['overview'] : path.split('/').map((part) => decodeURIComponent(part));
}

/** The current route's query as name -> value (the last value of a repeated name). */
export function currentQuery(): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(hashParts().query));
}

function useHash<T>(read: () => T): T {
  const [value, setValue] = useState(read);
  useEffect(() => {
    const onChange = () => setValue(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return value;
}

export function useRoute(): string[] {
  return useHash(currentRoute);
}

export function useQuery(): Record<string, string> {
  return useHash(currentQuery);
}

/**
 * Sets the current route's query (empty values are left out), as a new history entry: Back returns to the previous
 * filter. Fires `hashchange`, which every `useQuery` follows.
 */
export function setQuery(query: Record<string, string | undefined>): void {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const text = params.toString();
  const next = `#/${hashParts().path}${text ? `?${text}` : ''}`;
  if (next !== location.hash) location.hash = next;
}

export function href(...parts: string[]): string {
  return `#/${parts.map((p) => encodeURIComponent(p)).join('/')}`;
}
