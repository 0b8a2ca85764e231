/**
 * Hash routes (`#/grants`, `#/decisions/<id>`): the console is static files with one index.html, so the server needs
 * no fallback route, and a reload keeps the page (though not the token, which lives in memory only).
 */
import { useEffect, useState } from 'preact/hooks';

export function currentRoute(): string[] {
  const hash = location.hash.replace(/^#\/?/, '');
  return hash === '' ? ['overview'] : hash.split('/').map((part) => decodeURIComponent(part));
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export function href(...parts: string[]): string {
  return `#/${parts.map((p) => encodeURIComponent(p)).join('/')}`;
}
