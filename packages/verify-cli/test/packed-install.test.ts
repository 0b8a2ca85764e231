/**
 * The auditor's install, end to end (issue 26): `npm pack` of packages/verify-cli gives one tarball that installs into
 * a fresh project outside the repository with no registry reachable and an empty npm cache (the tarball needs
 * nothing else: no other package of this repository, no native addon), locally and with `-g`. The installed
 * `aar-verify` then verifies what a real `aar serve` produced (an evidence pack, a proof bundle, a delegation chain
 * of a delegated purchase) in a process that has no database, with the JWKS from a file or from the issuer URL, and
 * refuses the same documents with one value changed.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelegationWorld } from '../../server/test/support/delegation-world.ts';
import { spawnServer, type ServerProcess } from '../../server/test/support/spawn-server.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const exec = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string };
const TOKEN = 'verify-cli-e2e-admin-token-0123456789';
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const dir = mkdtempSync(join(tmpdir(), 'aar-verify-install-'));
const project = join(dir, 'auditor');

/**
 * The environment of the auditor's machine: none of this process's npm settings, an empty cache and user config of
 * its own, a registry nobody answers at (any fetch fails at once), no module path into the repository.
 */
function isolatedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'NODE_PATH' && key !== 'NODE_OPTIONS' && key !== 'DATABASE_URL') {
      env[key] = value;
    }
  }
  return {
    ...env,
    HOME: join(dir, 'home'),
    npm_config_cache: join(dir, 'empty-npm-cache'),
    npm_config_userconfig: join(dir, 'home', '.npmrc'),
    npm_config_registry: 'http://127.0.0.1:9/',
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

async function run(file: string, args: string[], cwd: string) {
  try {
    const { stdout, stderr } = await exec(file, args, { cwd, env: isolatedEnv(), timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const aarVerify = (...args: string[]) => run(join(project, 'node_modules', '.bin', 'aar-verify'), args, project);

let tarball: string;
let server: ServerProcess;
let jwksServer: Server;
let jwksRequests: string[] = [];
let issuerUrl: string;
const files: Record<string, string> = {};

function write(name: string, value: unknown): string {
  const file = join(project, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

beforeAll(async () => {
  mkdirSync(join(dir, 'home'), { recursive: true });
  writeFileSync(join(dir, 'home', '.npmrc'), '');
  // 1. the tarball, as a release engineer makes it (prepack builds the bundle)
  const packEnv = { ...isolatedEnv(), npm_config_offline: undefined, npm_config_registry: undefined };
  const packed = await exec(NPM, ['pack', '--json', '--pack-destination', dir], {
    cwd: PACKAGE_DIR,
    env: packEnv,
    timeout: 120_000,
  });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(dir, info!.filename);
  expect(info!.filename).toBe(`aar-verify-${version}.tgz`);
  expect(info!.files.map((f) => f.path).sort()).toEqual([
    'README.md',
    'bin/aar-verify.js',
    'dist/aar-verify.js',
    'package.json',
  ]);

  // 2. the auditor's project: installed from the tarball alone
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'auditor', private: true }));
  const installed = await run(NPM, ['install', tarball], project);
  expect(installed.code, installed.stderr).toBe(0);

  // 3. what a real service produced: a delegated purchase's pack, bundle and chain
  server = await spawnServer({ AAR_DATA_DIR: join(dir, 'server'), AAR_BOOTSTRAP_TOKEN: TOKEN, DATABASE_URL: '' });
  const w = await buildDelegationWorld(server.base, TOKEN);
  const child = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:shopper-1', {
    max_amount_per_purchase: { amount: 50, currency: 'EUR' },
  });
  const decision = (await w.authorize('shopper-1', w.purchase('shopper-1', 30))).body;
  expect(decision.decision).toBe('allow_with_constraints');
  const get = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });
    expect(res.ok, `${path}: ${res.status}`).toBe(true);
    return (await res.json()) as Json;
  };
  const pack = await get(`/v1/evidence-packs/${encodeURIComponent(decision.evidence_refs[0])}`);
  const bundle = await get('/v1/bundles/assemble', {
    method: 'POST',
    body: JSON.stringify({ policy_decision_id: decision.policy_decision_id, purpose: { purpose: 'audit' } }),
  });
  expect(child.status).toBe(201);
  const chain = await get(`/v1/grants/${encodeURIComponent(child.body.grant_id)}/chain`);
  const jwks = await (await fetch(`${server.base}/.well-known/jwks.json`)).json();
  await server.stop();

  files.jwks = write('jwks.json', jwks);
  files.pack = write('pack.json', pack);
  files.bundle = write('bundle.json', bundle);
  files.chain = write('chain.json', chain);
  files.packEdited = write('pack-edited.json', { ...pack, request: { ...pack.request, merchant_id: 'elsewhere' } });
  files.bundleEdited = write('bundle-edited.json', { ...bundle, purpose_manifest: { purpose: 'something else' } });
  files.duplicateKeys = join(project, 'pack-duplicate-keys.json');
  writeFileSync(files.duplicateKeys, `{"schema_version":"x","schema_version":"y"}`);

  // the issuer, for --jwks URL: a loopback server that publishes the JWKS where the service does
  jwksServer = createServer((req, res) => {
    jwksRequests.push(req.url ?? '');
    res.writeHead(req.url === '/.well-known/jwks.json' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url === '/.well-known/jwks.json' ? JSON.stringify(jwks) : '{}');
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  issuerUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => (jwksServer ? jwksServer.close(resolve) : resolve(undefined)));
  rmSync(dir, { recursive: true, force: true });
});

describe('aar-verify installed from its npm pack tarball', () => {
  it('installs with nothing but the tarball: no dependency, no registry, an empty cache', () => {
    expect(readdirSync(join(project, 'node_modules')).sort()).toEqual(['.bin', '.package-lock.json', '@aar']);
    expect(readdirSync(join(project, 'node_modules', '@aar'))).toEqual(['verify']);
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as Json;
    expect(Object.keys(lock.packages).sort()).toEqual(['', 'node_modules/@aar/verify']);
    // the bundle imports nothing but Node's built-ins (no better-sqlite3, no pg, no @aar/* at run time)
    const bundled = readFileSync(join(project, 'node_modules', '@aar', 'verify', 'dist', 'aar-verify.js'), 'utf8');
    const imports = [...bundled.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports.every((name) => name!.startsWith('node:'))).toBe(true);
    expect(bundled).not.toMatch(/better-sqlite3|from "pg"/);
  });

  it('prints its version and usage', async () => {
    expect((await aarVerify('--version')).stdout.trim()).toBe(version);
    const help = await aarVerify('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('aar-verify pack');
  });

  it('verifies the service’s evidence pack, proof bundle and delegation chain with the JWKS from a file', async () => {
    const pack = await aarVerify('pack', files.pack!, '--jwks', files.jwks!);
    expect(pack.code, pack.stdout + pack.stderr).toBe(0);
    expect(pack.stdout).toMatch(/^valid {3}.*pack\.json .*replay allow_with_constraints\//);
    const bundle = await aarVerify('verify-bundle', files.bundle!, '--jwks', files.jwks!, '--json');
    expect(bundle.code, bundle.stdout + bundle.stderr).toBe(0);
    const result = JSON.parse(bundle.stdout) as Json;
    expect(result.valid).toBe(true);
    expect(result.checks.map((c: Json) => c.ok)).toEqual(Array(10).fill(true));
    const chain = await aarVerify('chain', files.chain!, '--jwks', files.jwks!);
    expect(chain.code, chain.stdout + chain.stderr).toBe(0);
    expect(chain.stdout).toMatch(/^valid {3}.*2 link\(s\)/);
  });

  it('fetches the JWKS once from the issuer URL it is given, and only from there', async () => {
    jwksRequests = [];
    const out = await aarVerify('pack', files.pack!, '--jwks', issuerUrl);
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(jwksRequests).toEqual(['/.well-known/jwks.json']);
    const missing = await aarVerify('pack', files.pack!, '--jwks', `${issuerUrl}/elsewhere/jwks.json`);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot load the JWKS');
  });

  it('refuses the documents with one value changed, naming the failing checks (exit 1)', async () => {
    const pack = await aarVerify('pack', files.pack!, files.packEdited!, files.duplicateKeys!, '--jwks', files.jwks!);
    expect(pack.code).toBe(1);
    const lines = pack.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^valid/);
    expect(lines[1]).toMatch(/^INVALID .*pack-edited\.json .*pack_signature: signature_mismatch/);
    expect(lines[2]).toMatch(/^INVALID .*pack-duplicate-keys\.json {2}not strict JSON/);
    expect(lines[3]).toBe('1 of 3 packs valid');
    const bundle = await aarVerify('bundle', files.bundleEdited!, '--jwks', files.jwks!);
    expect(bundle.code).toBe(1);
    expect(bundle.stdout).toMatch(/FAIL bundle_signature/);
    expect(bundle.stdout).toMatch(/FAIL references_digest/);
  });

  it('judges a chain at --now, and refuses what it cannot read (exit 2)', async () => {
    const later = await aarVerify('chain', files.chain!, '--jwks', files.jwks!, '--now', '2999-01-01T00:00:00Z');
    expect(later.code).toBe(1);
    expect(later.stdout).toContain('expired');
    expect((await aarVerify('chain', files.chain!, '--jwks', files.jwks!, '--now', 'tomorrow')).code).toBe(2);
    expect((await aarVerify('pack', join(project, 'nope.json'), '--jwks', files.jwks!)).code).toBe(2);
    expect((await aarVerify('pack', files.pack!)).code).toBe(2);
    expect((await aarVerify('audit', files.pack!, '--jwks', files.jwks!)).code).toBe(2);
  });

  it('installs globally from the same tarball (npm install -g)', async () => {
    const prefix = join(dir, 'global');
    const installed = await run(NPM, ['install', '-g', '--prefix', prefix, tarball], dir);
    expect(installed.code, installed.stderr).toBe(0);
    const out = await run(join(prefix, 'bin', 'aar-verify'), ['pack', files.pack!, '--jwks', files.jwks!], dir);
    expect(out.code, out.stdout + out.stderr).toBe(0);
  });
});
