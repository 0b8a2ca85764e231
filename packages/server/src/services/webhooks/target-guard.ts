/**
 * The SSRF guard of webhook delivery (CONTRACT section 9, SECURITY.md). Attacker assumption: whoever registers an
 * endpoint controls its URL and its DNS, and wants the service to reach something only the service can reach
 * (loopback admin ports, the cloud metadata address, the private network).
 * - The URL is parsed by the WHATWG parser, which turns every IPv4 spelling (`0x7f000001`, `2130706433`,
 *   `0177.0.0.1`, `127.1`) into dotted decimal and compresses IPv6, so one address check covers every spelling.
 * - `https` only; no userinfo at all (`https://good.com@127.0.0.1/` is a userinfo trick); no other scheme.
 * - An IP literal is checked as is; a name is resolved ONCE per connection, EVERY address is checked (a name with
 *   one public and one loopback address is refused), and the connection goes to the address that was checked
 *   (pinnedLookup), so a name that rebinds between check and connect gains nothing.
 * - Redirects are never followed (deliver-attempt.ts), so a 3xx cannot point the service elsewhere.
 * `AAR_WEBHOOK_ALLOW_INSECURE=true` allows `http` and every address (development and tests only); userinfo and other
 * schemes stay refused. Written by hand: no maintained library classifies addresses with reasons like these;
 * node:net's BlockList does the prefix matching.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { AarError } from '@aar/core';

export type TargetRefusalReason =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'userinfo_not_allowed'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'unique_local'
  | 'ipv4_mapped'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'unresolvable';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (injectable: tests rebind names at will). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** Ranges in check order: the first match names the reason. */
const RANGES: ReadonlyArray<readonly [TargetRefusalReason, 'ipv4' | 'ipv6', string, number]> = [
  ['broadcast', 'ipv4', '255.255.255.255', 32],
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['cgnat', 'ipv4', '100.64.0.0', 10],
  ['link_local', 'ipv4', '169.254.0.0', 16],
  ['reserved', 'ipv4', '192.0.0.0', 24], // IETF protocol assignments
  ['reserved', 'ipv4', '192.0.2.0', 24], // TEST-NET-1
  ['reserved', 'ipv4', '198.51.100.0', 24], // TEST-NET-2
  ['reserved', 'ipv4', '203.0.113.0', 24], // TEST-NET-3
  ['reserved', 'ipv4', '198.18.0.0', 15], // benchmarking
  ['reserved', 'ipv4', '192.88.99.0', 24], // 6to4 relay anycast
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['ipv4_mapped', 'ipv6', '::ffff:0:0', 96],
  ['reserved', 'ipv6', '::', 96], // IPv4-compatible (deprecated)
  ['reserved', 'ipv6', '64:ff9b::', 96], // NAT64: would reach any IPv4 address, private ones included
  ['reserved', 'ipv6', '64:ff9b:1::', 48],
  ['reserved', 'ipv6', '100::', 64], // discard
  ['reserved', 'ipv6', '2001:db8::', 32], // documentation
  ['reserved', 'ipv6', '2001::', 23], // IETF protocol assignments, Teredo included
  ['reserved', 'ipv6', '2002::', 16], // 6to4: embeds an IPv4 address
  ['reserved', 'ipv6', '3fff::', 20], // documentation
  ['unique_local', 'ipv6', 'fc00::', 7],
  ['link_local', 'ipv6', 'fe80::', 10],
  ['reserved', 'ipv6', 'fec0::', 10], // site-local (deprecated)
  ['multicast', 'ipv6', 'ff00::', 8],
];

const LISTS: ReadonlyArray<readonly [TargetRefusalReason, BlockList, 'ipv4' | 'ipv6']> = RANGES.map(
  ([reason, family, network, prefix]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return [reason, list, family] as const;
  },
);
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/** Why an address may not be a webhook target, or null when it may. */
export function classifyAddress(address: string): TargetRefusalReason | null {
  const version = isIP(address);
  if (version === 0) return 'invalid_url';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  for (const [reason, list, listFamily] of LISTS) {
    if (listFamily === family && list.check(address, family)) return reason;
  }
  // everything outside 2000::/3 is unassigned or special-purpose
  if (family === 'ipv6' && !GLOBAL_UNICAST_V6.check(address, 'ipv6')) return 'reserved';
  return null;
}

const DETAIL: Readonly<Record<TargetRefusalReason, string>> = {
  invalid_url: 'is not an absolute URL',
  scheme_not_allowed: 'must use https',
  userinfo_not_allowed: 'must not carry a user name or password',
  loopback: 'reaches a loopback address',
  private: 'reaches a private network address',
  link_local: 'reaches a link-local address (cloud metadata services live there)',
  cgnat: 'reaches a carrier-grade NAT address (100.64.0.0/10)',
  unique_local: 'reaches an IPv6 unique local address (fc00::/7)',
  ipv4_mapped: 'reaches an IPv4-mapped IPv6 address',
  unspecified: 'reaches an unspecified address (0.0.0.0/8 or ::)',
  multicast: 'reaches a multicast address',
  broadcast: 'reaches the broadcast address',
  reserved: 'reaches a reserved or documentation address',
  unresolvable: 'has a host name that does not resolve',
};

export function targetRefused(reason: TargetRefusalReason, extra = ''): AarError {
  const message = `${DETAIL[reason]}${extra}`;
  return new AarError('webhook_target_refused', `/url: ${message}`, {
    errors: [{ path: '/url', message }],
    extra: { reason },
  });
}

export function isTargetRefusal(error: unknown): error is AarError {
  return error instanceof AarError && error.code === 'webhook_target_refused';
}

export interface ParsedTarget {
  url: URL;
  /** the host without IPv6 brackets */
  host: string;
  /** set when the host is an IP literal */
  ip: string | null;
}

/** Checks what can be checked without DNS: scheme, userinfo, and the address of an IP literal. Throws when refused. */
export function parseTarget(raw: string, allowInsecure: boolean): ParsedTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw targetRefused('invalid_url');
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) {
    throw targetRefused('scheme_not_allowed', `, got \`${url.protocol.replace(/:$/, '')}\``);
  }
  // INVARIANT: no userinfo, ever: `https://good.com@127.0.0.1/` goes to 127.0.0.1, whatever a human reads first
  if (url.username !== '' || url.password !== '' || /^[a-z]+:\/\/[^/?#]*@/i.test(raw)) {
    throw targetRefused('userinfo_not_allowed');
  }
  if (url.hostname === '') throw targetRefused('invalid_url');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const ip = isIP(host) === 0 ? null : host;
  if (ip !== null && !allowInsecure) {
    const reason = classifyAddress(ip);
    if (reason) throw targetRefused(reason, ` (\`${ip}\`)`);
  }
  return { url, host, ip };
}

/**
 * Resolves a name once and checks every address; returns the one to connect to. An IP literal is returned as is
 * (parseTarget checked it). Throws `webhook_target_refused` when any address is refused or none resolves.
 */
export async function resolveTarget(
  target: ParsedTarget,
  resolve: HostResolver,
  allowInsecure: boolean,
): Promise<ResolvedAddress> {
  if (target.ip !== null) return { address: target.ip, family: isIP(target.ip) === 6 ? 6 : 4 };
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolve(target.host);
  } catch {
    throw targetRefused('unresolvable', ` (\`${target.host}\`)`);
  }
  if (addresses.length === 0) throw targetRefused('unresolvable', ` (\`${target.host}\`)`);
  if (!allowInsecure) {
    for (const { address } of addresses) {
      const reason = classifyAddress(address);
      if (reason) throw targetRefused(reason, ` (\`${target.host}\` resolves to \`${address}\`)`);
    }
  }
  return addresses[0]!;
}

/**
 * A `lookup` for net/tls.connect that resolves through the guard: the socket connects to exactly the address that
 * was checked (no second resolution between check and connect). Node 20 asks for `all` addresses when it races
 * families (autoSelectFamily); it gets the one pinned address either way.
 */
export function pinnedLookup(resolve: HostResolver, allowInsecure: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const target: ParsedTarget = { url: new URL('https://invalid.'), host: hostname, ip: null };
    resolveTarget(target, resolve, allowInsecure).then(
      ({ address, family }) => {
        if ((options as { all?: boolean }).all) {
          (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [{ address, family }]);
        } else callback(null, address, family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}
