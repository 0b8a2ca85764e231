/**
 * Differential cases for the SDKs' ports of `verifyBundle` (Python `verify_bundle`, Go `VerifyBundle`): each case
 * names a bundle of `vectors/bundles`, the damage done to it (JSON Pointer edits made with a seeded PRNG, mulberry32,
 * so the output is the same on every run) and, optionally, another audit log origin, with core's full answer: the
 * ten checks, each `ok` and its `detail`. A port must answer exactly that, detail for detail.
 *
 *   node --conditions=aar-source --import tsx vectors/sdk/generate-bundle-differential.ts [perBundle] [out]
 *   (default 12 per bundle, vectors/sdk/bundle-differential.json)
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyBundle } from '../../packages/core/src/bundles/index.ts';
import type { Jwks } from '../../packages/core/src/index.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const here = fileURLToPath(new URL('.', import.meta.url));
const perBundle = Number(process.argv[2] ?? 12);
const out = process.argv[3] ?? join(here, 'bundle-differential.json');
const SEED = 20260415;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const ODD_VALUES: readonly Json[] = [null, true, 0, -1, 1.5, '', 'x', [], {}, '2026-04-15T09:59:59Z'];

/** One edit: set `value` at `pointer` (RFC 6901), or delete the member when `value` is absent. */
interface Edit {
  pointer: string;
  value?: Json;
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** A random member 1-6 levels down, replaced by an odd value or deleted. */
function randomEdit(bundle: Json): Edit {
  let node = bundle;
  let pointer = '';
  for (let depth = 0; depth < 6; depth++) {
    const keys = Array.isArray(node) ? node.map((_, i) => String(i)) : Object.keys(node);
    if (keys.length === 0) break;
    const key = pick(keys);
    pointer += `/${escape(key)}`;
    const child = node[key];
    if (child === null || typeof child !== 'object' || rand() < 0.25) break;
    node = child;
  }
  return !Array.isArray(node) && rand() < 0.2 ? { pointer } : { pointer, value: pick(ODD_VALUES) };
}

export function applyEdits(bundle: Json, edits: readonly Edit[]): Json {
  const copy = JSON.parse(JSON.stringify(bundle));
  for (const { pointer, value } of edits) {
    const keys = pointer
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    let node = copy;
    for (const key of keys.slice(0, -1)) node = node[key];
    const last = keys[keys.length - 1]!;
    if (value === undefined && !Array.isArray(node)) delete node[last];
    else node[last] = value;
  }
  return copy;
}

const dir = join(here, '..', 'bundles');
const cases: Json[] = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const input = JSON.parse(readFileSync(join(dir, file), 'utf8')).input as { bundle: Json; jwks: Jwks; origin: string };
  const variants: { edits: Edit[]; origin: string }[] = [{ edits: [], origin: 'another-log.example/audit' }];
  for (let i = 0; i < perBundle; i++) {
    const edits = [randomEdit(input.bundle)];
    // a second edit is drawn on the bundle as the first left it
    if (rand() < 0.3) edits.push(randomEdit(applyEdits(input.bundle, edits)));
    variants.push({ edits, origin: input.origin });
  }
  for (const { edits, origin } of variants) {
    const result = await verifyBundle(applyEdits(input.bundle, edits), input.jwks, { origin });
    cases.push({ bundle: file, origin, edits, want: result });
  }
}

writeFileSync(
  out,
  `${JSON.stringify({ desc: 'core verifyBundle on damaged vectors/bundles (seeded); see the generator', seed: SEED, cases }, null, 1)}\n`,
);
console.log(`${cases.length} cases -> ${out}`);
