/**
 * Reads a V8 CPU profile (`node --cpu-prof`, e.g. of `aar serve` under bench/authorize-http.ts's load) and prints
 * where the busy samples went, by category: what bench/README.md's profile breakdown is made of.
 * `node --import tsx bench/profile/profile-breakdown.ts <file.cpuprofile> [--top N]`
 *
 * A sample is put in the first category (in CATEGORIES order) that any frame of its stack matches, so a category
 * near the top (the commit, Ed25519) counts everything under it, and the later ones only what is left. Idle samples
 * and module loading (start-up) are left out: percentages are of the service's busy time.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

type Matcher = (frame: CallFrame) => boolean;
const fn =
  (name: string, url?: RegExp): Matcher =>
  (f) =>
    f.functionName === name && (!url || url.test(f.url));
const file =
  (url: RegExp): Matcher =>
  (f) =>
    url.test(f.url);

/** first match wins; `skip` categories are not part of the service's work */
export const CATEGORIES: ReadonlyArray<{ name: string; match: Matcher; where: 'any' | 'leaf'; skip?: boolean }> = [
  { name: 'idle', match: fn('(idle)'), where: 'leaf', skip: true },
  { name: 'start-up (module loading)', match: file(/node:internal\/modules\//), where: 'any', skip: true },
  { name: 'garbage collection', match: fn('(garbage collector)'), where: 'leaf' },
  { name: 'SQLite commit (fsync, on the calling thread)', match: fn('commitTransaction'), where: 'any' },
  { name: 'Ed25519 verify (request signature, grant links)', match: fn('verifyOneShot'), where: 'any' },
  { name: 'Ed25519 sign (decision map, audit)', match: fn('signOneShot'), where: 'any' },
  { name: 'worker-thread messaging', match: file(/node:internal\/worker/), where: 'any' },
  { name: 'SQLite statements', match: file(/direct-sqlite|better-sqlite3|dialect\/sqlite\/|sqlite-/), where: 'leaf' },
  { name: 'PostgreSQL driver', match: file(/node_modules\/(pg|pg-protocol|pg-pool)\//), where: 'leaf' },
  { name: 'Kysely (build, compile, connection, promise hops)', match: file(/node_modules\/kysely\//), where: 'leaf' },
  { name: 'canonical JSON (RFC 8785)', match: file(/write-canonical-json/), where: 'leaf' },
  { name: 'hashing (SHA-256)', match: file(/node:internal\/crypto\/hash|@noble\/hashes/), where: 'leaf' },
  { name: 'decide()', match: file(/core\/src\/decide\//), where: 'any' },
  {
    name: 'JSON parse/stringify',
    match: (f) => f.functionName === 'parse' || f.functionName === 'stringify',
    where: 'leaf',
  },
  {
    name: 'HTTP + Fastify (parse, route, hooks, serialize, socket)',
    match: file(
      /node_modules\/(fastify|find-my-way|avvio|fast-json-stringify|@fastify|light-my-request|ajv)|node:_http|node:net|node:internal\/(streams|stream_base|http)|node:events/,
    ),
    where: 'leaf',
  },
  { name: 'ids, random', match: file(/core\/src\/ids\/|node:internal\/crypto\/random/), where: 'leaf' },
  { name: 'service code (other)', match: file(/packages\/(server|core)\/src\//), where: 'leaf' },
  { name: 'other (runtime, microtasks, natives)', match: () => true, where: 'leaf' },
];

export interface Breakdown {
  busySamples: number;
  busyMs: number;
  rows: Array<{ name: string; samples: number; share: number }>;
  topLeaves: Array<{ name: string; share: number }>;
}

export function breakdown(profile: CpuProfile, top = 15): Breakdown {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const counts = new Map<number, number>();
  for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  const perCategory = new Map<string, number>();
  const perLeaf = new Map<string, number>();
  let busy = 0;
  for (const [id, count] of counts) {
    const stack: CallFrame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      stack.push(byId.get(cur)!.callFrame);
    const category = CATEGORIES.find((c) => (c.where === 'leaf' ? c.match(stack[0]!) : stack.some(c.match)))!;
    if (category.skip) continue;
    busy += count;
    perCategory.set(category.name, (perCategory.get(category.name) ?? 0) + count);
    const leaf = `${stack[0]!.functionName || '(anonymous)'} ${stack[0]!.url.replace(/.*\/(node_modules|packages)\//, '')}`;
    perLeaf.set(leaf, (perLeaf.get(leaf) ?? 0) + count);
  }
  const intervalMs = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const share = (n: number) => (busy === 0 ? 0 : n / busy);
  return {
    busySamples: busy,
    busyMs: busy * intervalMs,
    rows: CATEGORIES.filter((c) => !c.skip).map((c) => ({
      name: c.name,
      samples: perCategory.get(c.name) ?? 0,
      share: share(perCategory.get(c.name) ?? 0),
    })),
    topLeaves: [...perLeaf]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, n]) => ({ name, share: share(n) })),
  };
}

function main(argv: string[]): void {
  const files = argv.filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
  const topAt = argv.indexOf('--top');
  const top = topAt >= 0 ? Number(argv[topAt + 1]) : 15;
  for (const path of files) {
    const result = breakdown(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, top);
    console.log(`${path}: ${result.busySamples} busy samples, ${(result.busyMs / 1000).toFixed(1)} s busy`);
    for (const row of result.rows.filter((r) => r.samples > 0).sort((a, b) => b.samples - a.samples)) {
      console.log(`| ${row.name} | ${(100 * row.share).toFixed(1)} % |`);
    }
    console.log('top leaf functions:');
    for (const leaf of result.topLeaves) console.log(`  ${(100 * leaf.share).toFixed(1).padStart(5)} %  ${leaf.name}`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) main(process.argv.slice(2));
