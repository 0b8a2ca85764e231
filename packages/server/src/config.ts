/**
 * Configuration from the environment (CONTRACT section 11). Flags of `aar serve` override the environment.
 * Secrets (AAR_BOOTSTRAP_TOKEN, DATABASE_URL's password) are never logged.
 */
import { resolve } from 'node:path';

export interface AppConfig {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  issuerUrl: string;
  bootstrapToken: string | undefined;
  logLevel: string;
  /** requests per minute per credential (or per address when unauthenticated) */
  rateLimit: number;
  /** maximum request body in bytes */
  bodyLimit: number;
  /** how long an Idempotency-Key is remembered, seconds (CONTRACT: at least 24 hours) */
  idempotencyTtlSeconds: number;
  /** authorize requests must carry an RFC 9421 signature of the agent (CONTRACT section 7) */
  requireSignedRequests: boolean;
  /** freshness window of a request signature's `created`, seconds, either way */
  signatureWindowSeconds: number;
  /** how long an approval waits for the principal, seconds (CONTRACT section 6: 15 minutes) */
  approvalTtlSeconds: number;
  /**
   * The base URLs this service answers under (CONTRACT section 7: AAR_PUBLIC_URL, comma-separated; default the issuer
   * URL, plus its loopback names on a loopback-bound server: loopbackNames()). A request signature's `@target-uri` is
   * rebuilt from these and the request path, never from request headers.
   */
  publicUrls: string[];
  /**
   * The base URLs of the policy enforcement points (gateways) that call the AuthZEN endpoints (CONTRACT section 20:
   * AAR_PEP_URLS, comma-separated; default none). An agent's signed request that a PEP forwards in
   * `context.agent_request` verifies only for one of these + the path and query it names.
   */
  pepUrls: string[];
  /** a checkpoint is signed at least this often while entries arrive, seconds (CONTRACT section 8: 10) */
  checkpointIntervalSeconds: number;
  /** start even when the chain's tip does not match the last checkpoint (loudly logged; AAR_START_UNVERIFIED) */
  startUnverified: boolean;
  /** webhook targets may be http and private/loopback addresses (CONTRACT section 9; development and tests only) */
  webhookAllowInsecure: boolean;
  /**
   * The `aud` values an AP2 mandate's key-binding hops may name (CONTRACT section 21, AAR_MANDATE_AUDIENCES,
   * comma-separated; default the issuer URL): a presentation made for another verifier is refused
   * (`audience_mismatch`), so one handed to someone else cannot be replayed here.
   */
  mandateAudiences: string[];
  /**
   * A directory holding the AP2 JSON Schemas as AP2 publishes them (AAR_AP2_SCHEMA_DIR: `open_payment_mandate.json`,
   * `payment_mandate.json`, `open_checkout_mandate.json`, `checkout_mandate.json`, `types/`): when set, every mandate
   * content accepted is validated against them (`schema_invalid`); unset, the contents are type-checked member by
   * member where they are read (core ap2-scope.ts) and nothing else.
   */
  ap2SchemaDir?: string | undefined;
  /** the built console and simulator (AAR_CONSOLE_DIR); default: packages/console/dist of the installed @aar/console */
  consoleDir?: string | undefined;
  /**
   * The opt-in capabilities this deployment enables (CONTRACT section 22, AAR_OPT_IN=search,memory,reports; default
   * none). A route of a capability not in this set answers 403 `capability_not_enabled` to every credential, and no
   * token can be given a scope of it.
   */
  optIn: ReadonlySet<OptInCapability>;
}

/** The opt-in capabilities (CONTRACT section 22); a token scope is `<capability>.<access>` (token-scopes.ts). */
export const OPT_IN_CAPABILITIES = ['search', 'memory', 'reports'] as const;
export type OptInCapability = (typeof OPT_IN_CAPABILITIES)[number];

export type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, overrides: Partial<AppConfig> = {}): AppConfig {
  const host = overrides.host ?? env.AAR_HOST ?? '127.0.0.1';
  const port = overrides.port ?? intFrom(env, 'AAR_PORT', 8080, 0, 65535);
  const base: AppConfig = {
    host,
    port,
    dataDir: resolve(overrides.dataDir ?? env.AAR_DATA_DIR ?? './data'),
    databaseUrl: overrides.databaseUrl ?? (env.DATABASE_URL || undefined),
    issuerUrl: overrides.issuerUrl ?? env.AAR_ISSUER_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    bootstrapToken: overrides.bootstrapToken ?? (env.AAR_BOOTSTRAP_TOKEN || undefined),
    logLevel: overrides.logLevel ?? env.AAR_LOG_LEVEL ?? 'info',
    rateLimit: overrides.rateLimit ?? intFrom(env, 'AAR_RATE_LIMIT', 6000, 1, 10_000_000),
    bodyLimit: overrides.bodyLimit ?? intFrom(env, 'AAR_BODY_LIMIT', 1024 * 1024, 1024, 64 * 1024 * 1024),
    idempotencyTtlSeconds: overrides.idempotencyTtlSeconds ?? 24 * 3600,
    requireSignedRequests: overrides.requireSignedRequests ?? boolFrom(env, 'AAR_REQUIRE_SIGNED_REQUESTS', true),
    signatureWindowSeconds: overrides.signatureWindowSeconds ?? intFrom(env, 'AAR_SIGNATURE_WINDOW', 300, 1, 3600),
    approvalTtlSeconds: overrides.approvalTtlSeconds ?? intFrom(env, 'AAR_APPROVAL_TTL', 900, 10, 7 * 24 * 3600),
    publicUrls: [],
    pepUrls: overrides.pepUrls ?? pepUrlsFrom(env.AAR_PEP_URLS),
    checkpointIntervalSeconds:
      overrides.checkpointIntervalSeconds ?? intFrom(env, 'AAR_CHECKPOINT_INTERVAL', 10, 1, 3600),
    startUnverified: overrides.startUnverified ?? boolFrom(env, 'AAR_START_UNVERIFIED', false),
    webhookAllowInsecure: overrides.webhookAllowInsecure ?? boolFrom(env, 'AAR_WEBHOOK_ALLOW_INSECURE', false),
    consoleDir: overrides.consoleDir ?? (env.AAR_CONSOLE_DIR ? resolve(env.AAR_CONSOLE_DIR) : undefined),
    mandateAudiences: [],
    ap2SchemaDir: overrides.ap2SchemaDir ?? (env.AAR_AP2_SCHEMA_DIR ? resolve(env.AAR_AP2_SCHEMA_DIR) : undefined),
    optIn: overrides.optIn ?? optInFrom(env.AAR_OPT_IN),
  };
  base.mandateAudiences = overrides.mandateAudiences ?? mandateAudiencesFrom(env.AAR_MANDATE_AUDIENCES, base.issuerUrl);
  base.publicUrls =
    overrides.publicUrls ??
    (isUnset(env.AAR_PUBLIC_URL)
      ? withLoopbackNames(publicUrlsFrom(undefined, base.issuerUrl), host)
      : publicUrlsFrom(env.AAR_PUBLIC_URL, base.issuerUrl));
  if (base.bootstrapToken !== undefined && base.bootstrapToken.length < 1) {
    throw new ConfigError('AAR_BOOTSTRAP_TOKEN must not be empty');
  }
  return base;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const MAX_PUBLIC_URLS = 8;

function isUnset(raw: string | undefined): boolean {
  return raw === undefined || raw.trim() === '';
}

/** The names of this machine's loopback interface, as a URL's host: what a client on the same machine may write. */
const LOOPBACK_URL_HOSTS = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** Whether a listen address (AAR_HOST) or URL host is the loopback interface only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * The default public URL (the issuer URL) and, when the service listens on loopback only and that URL names a
 * loopback host, the same URL under each loopback name (`http://localhost:8080`, `http://127.0.0.1:8080`,
 * `http://[::1]:8080`): the README's `localhost` examples and an SDK signing for `localhost` then verify (issue 26).
 * Never otherwise: on a non-loopback address, with AAR_PUBLIC_URL set, or with an issuer URL naming another host,
 * the signed `@target-uri` must name exactly what the operator configured. Attacker assumption: only a process on
 * this machine reaches a loopback-bound listener. What the aliases add is that a signature an agent made for another
 * service of this machine, on the same port under another loopback name, would verify here if replayed within the
 * freshness window before its nonce is used: a development set-up's risk, which AAR_PUBLIC_URL removes.
 */
function withLoopbackNames(defaults: string[], listenHost: string): string[] {
  if (!isLoopbackHost(listenHost)) return defaults;
  const out = [...defaults];
  for (const entry of defaults) {
    const url = new URL(entry);
    if (!isLoopbackHost(url.hostname)) continue;
    for (const name of LOOPBACK_URL_HOSTS) {
      const alias = new URL(entry);
      alias.hostname = name;
      out.push(`${alias.origin}${alias.pathname.replace(/\/+$/, '')}`);
    }
  }
  return [...new Set(out)];
}

/** Each entry must be an absolute http(s) URL with no query or fragment; a trailing slash is dropped. */
function publicUrlsFrom(raw: string | undefined, issuerUrl: string): string[] {
  return baseUrlsFrom(raw === undefined || raw.trim() === '' ? issuerUrl : raw, 'AAR_PUBLIC_URL');
}

/** AAR_PEP_URLS: none when unset (a forwarded agent request then verifies against nothing) */
function pepUrlsFrom(raw: string | undefined): string[] {
  return raw === undefined || isUnset(raw) ? [] : baseUrlsFrom(raw, 'AAR_PEP_URLS');
}

/**
 * AAR_OPT_IN: a comma list of capability names, none when unset or empty. An unknown name stops the start (a typo
 * must not leave a capability the operator meant to enable off, nor a misspelt one silently ignored).
 */
export function optInFrom(raw: string | undefined): ReadonlySet<OptInCapability> {
  if (raw === undefined || isUnset(raw)) return new Set();
  const out = new Set<OptInCapability>();
  for (const entry of raw.split(',').map((s) => s.trim())) {
    if (entry === '') continue;
    if (!(OPT_IN_CAPABILITIES as readonly string[]).includes(entry)) {
      throw new ConfigError(`AAR_OPT_IN names \`${entry}\`; the capabilities are ${OPT_IN_CAPABILITIES.join(', ')}`);
    }
    out.add(entry as OptInCapability);
  }
  return out;
}

const MAX_MANDATE_AUDIENCES = 8;

/** AAR_MANDATE_AUDIENCES: opaque strings (AP2 names an audience by URL or by name), the issuer URL when unset. */
function mandateAudiencesFrom(raw: string | undefined, issuerUrl: string): string[] {
  if (raw === undefined || isUnset(raw)) return [issuerUrl];
  const entries = raw.split(',').map((s) => s.trim());
  if (entries.length > MAX_MANDATE_AUDIENCES) {
    throw new ConfigError(`AAR_MANDATE_AUDIENCES names ${entries.length} audiences; at most ${MAX_MANDATE_AUDIENCES}`);
  }
  for (const entry of entries) {
    if (!/^[\x21-\x7e]{1,512}$/.test(entry)) {
      throw new ConfigError(`AAR_MANDATE_AUDIENCES entries must be non-empty visible ascii, got \`${entry}\``);
    }
  }
  return [...new Set(entries)];
}

function baseUrlsFrom(raw: string, name: string): string[] {
  const entries = raw.split(',').map((s) => s.trim());
  // Each name costs one Ed25519 verification on a request whose signature fails: keep the list short.
  if (entries.length > MAX_PUBLIC_URLS) {
    throw new ConfigError(`${name} names ${entries.length} URLs; at most ${MAX_PUBLIC_URLS}`);
  }
  return entries.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(`${name} entries must be absolute URLs, got \`${entry}\``);
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username) {
      throw new ConfigError(
        `${name} entries must be http(s) URLs without query, fragment or userinfo, got \`${entry}\``,
      );
    }
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  });
}

function intFrom(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got \`${raw}\``);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function boolFrom(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got \`${raw}\``);
}
