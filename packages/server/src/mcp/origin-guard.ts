/**
 * DNS rebinding protection for the MCP HTTP transports (MCP 2025-11-25, Transports, "Security Warning": validate
 * `Origin`, answer 403 when it is present and not allowed; bind to localhost when local). A rebinding page reaches
 * 127.0.0.1 under its own host name, so both headers are checked: `Host` must be one of the names this server
 * answers under (loopback names with its port, plus any the operator lists), and `Origin`, when a browser sent one,
 * one of the allowed origins. Comparison is on lower-cased exact strings; no suffix or pattern matching.
 */
export interface OriginPolicy {
  /** `host:port` values `Host` may carry */
  hosts: ReadonlySet<string>;
  /** `scheme://host:port` values `Origin` may carry */
  origins: ReadonlySet<string>;
}

/** The loopback names of a local server on `port`, plus the operator's extra origins (`--allow-origin`). */
export function loopbackPolicy(port: number, extraOrigins: readonly string[] = []): OriginPolicy {
  const names = ['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${port}`);
  const origins = [...names.map((n) => `http://${n}`), ...extraOrigins.map(normalizeOrigin)];
  return { hosts: new Set(names), origins: new Set(origins) };
}

/** A policy for a deployment's public URLs (`aar serve`): their hosts and origins. */
export function publicUrlPolicy(urls: readonly string[], extraOrigins: readonly string[] = []): OriginPolicy {
  const parsed = urls.map((u) => new URL(u));
  return {
    hosts: new Set(parsed.map((u) => u.host.toLowerCase())),
    origins: new Set([...parsed.map((u) => u.origin.toLowerCase()), ...extraOrigins.map(normalizeOrigin)]),
  };
}

export function normalizeOrigin(value: string): string {
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`not an http(s) origin: ${value}`);
  return url.origin.toLowerCase();
}

/** undefined when allowed, else what is wrong (for the 403 answer). */
export function checkOrigin(
  policy: OriginPolicy,
  host: string | undefined,
  origin: string | undefined,
): string | undefined {
  if (host === undefined || !policy.hosts.has(host.toLowerCase())) return `Host \`${clip(host)}\` is not allowed`;
  if (origin !== undefined && !policy.origins.has(origin.toLowerCase()))
    return `Origin \`${clip(origin)}\` is not allowed`;
  return undefined;
}

function clip(value: string | undefined): string {
  return (value ?? '(none)').slice(0, 100).replace(/[^\x20-\x7e]/g, '?');
}
