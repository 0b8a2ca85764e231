/**
 * README's configuration table against the settings the server reads: every environment variable read under
 * packages/server (config.ts and the few commands that read their own, e.g. `aar conformance run`'s token) has a
 * row with a default and a meaning, no row names a variable nothing reads, and the defaults config.ts falls back to
 * are the ones the table states. A flag in the table must be one `aar serve` takes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeSpans, readRepositoryFile, sectionOf, tableRows } from './markdown.ts';

const SERVER_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SETTING = /^(AAR_[A-Z0-9_]+|DATABASE_URL)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Names read from an environment object: `env.X`, `process.env.X`, `env['X']`, `intFrom(env, 'X', …)`. */
function envNamesReadIn(text: string): Set<string> {
  const names = new Set<string>();
  const patterns = [/\benv\.([A-Z][A-Z0-9_]*)/g, /\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g, /\(env, '([A-Z][A-Z0-9_]*)'/g];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) if (SETTING.test(match[1]!)) names.add(match[1]!);
  }
  return names;
}

function settingsReadByServer(): Set<string> {
  const files = [...sourceFiles(join(SERVER_ROOT, 'src')), ...sourceFiles(join(SERVER_ROOT, 'bin'))];
  const names = new Set<string>();
  for (const file of files) for (const name of envNamesReadIn(readFileSync(file, 'utf8'))) names.add(name);
  return names;
}

/** config.ts's fallbacks that are literals: `env.X ?? 'v'`, `intFrom(env, 'X', 8080, …)`, `boolFrom(env, 'X', true)`. */
function literalDefaults(configSource: string): Map<string, string> {
  const defaults = new Map<string, string>();
  for (const m of configSource.matchAll(/env\.(AAR_[A-Z0-9_]+) \?\? '([^']*)'/g)) defaults.set(m[1]!, m[2]!);
  for (const m of configSource.matchAll(/(?:intFrom|boolFrom)\(env, '(AAR_[A-Z0-9_]+)', ([^,)]+)/g)) {
    const expression = m[2]!.trim();
    if (/^(true|false)$/.test(expression)) defaults.set(m[1]!, expression);
    else if (/^[\d_]+( \* [\d_]+)*$/.test(expression)) {
      const product = expression.split('*').reduce((n, factor) => n * Number(factor.trim().replace(/_/g, '')), 1);
      defaults.set(m[1]!, String(product));
    } else throw new Error(`cannot read the default of ${m[1]} (\`${expression}\`): extend this test`);
  }
  return defaults;
}

interface ConfigRow {
  variable: string;
  flag: string;
  default: string;
  meaning: string;
}

function readmeConfigRows(): ConfigRow[] {
  const section = sectionOf(readRepositoryFile('README.md'), '## Configuration');
  return tableRows(section).map((cells) => {
    expect(cells, `README configuration row \`${cells.join(' | ')}\``).toHaveLength(4);
    const [variable, flag, defaultCell, meaning] = cells as [string, string, string, string];
    const names = codeSpans(variable);
    expect(names, `README configuration row \`${cells.join(' | ')}\` names one variable`).toHaveLength(1);
    return { variable: names[0]!, flag, default: defaultCell, meaning };
  });
}

describe('README configuration table', () => {
  const read = settingsReadByServer();
  const rows = readmeConfigRows();
  const documented = rows.map((r) => r.variable);

  it('finds the settings config.ts reads (the scan itself works)', () => {
    const configNames = envNamesReadIn(readFileSync(join(SERVER_ROOT, 'src/config.ts'), 'utf8'));
    expect(configNames.size).toBeGreaterThanOrEqual(15);
    for (const name of configNames) expect(read).toContain(name);
  });

  it('documents every setting the server reads', () => {
    expect([...read].filter((name) => !documented.includes(name)).sort()).toEqual([]);
  });

  it('documents no setting that nothing reads, and none twice', () => {
    expect(documented.filter((name) => !read.has(name))).toEqual([]);
    expect(documented.filter((name, i) => documented.indexOf(name) !== i)).toEqual([]);
  });

  it('gives every setting a default and a meaning', () => {
    for (const row of rows) {
      expect(row.default, `${row.variable}: default`).not.toBe('');
      expect(row.meaning.length, `${row.variable}: meaning`).toBeGreaterThan(10);
    }
  });

  it('states the defaults config.ts falls back to', () => {
    const defaults = literalDefaults(readFileSync(join(SERVER_ROOT, 'src/config.ts'), 'utf8'));
    expect(defaults.size).toBeGreaterThanOrEqual(10);
    for (const [name, value] of defaults) {
      const row = rows.find((r) => r.variable === name);
      expect(row, name).toBeDefined();
      expect(codeSpans(row!.default), `${name}: README default`).toContain(value);
    }
  });
});
