/**
 * Builds the console into a scratch folder for one test file, so the browser tests always run the sources as written
 * (never a stale packages/console/dist, and never rewriting it under another suite).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CONFIG = fileURLToPath(new URL('../../vite.config.ts', import.meta.url));

export interface BuiltConsole {
  dir: string;
  remove(): void;
}

export async function buildConsole(): Promise<BuiltConsole> {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.tmp', 'console-build-'));
  await build({ configFile: CONFIG, logLevel: 'error', build: { outDir: dir, emptyOutDir: true } });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
