/**
 * Two static pages from one build: the console (`/console/`) and the public purchase simulator (`/simulator/`), with
 * their shared chunks under `/assets/`. `aar serve` serves `dist/` as it is (packages/server/src/routes/console.ts).
 * Core is bundled from its TypeScript sources (the `aar-source` condition), so the browser runs the very `decide`
 * and verifiers the server runs, and the build needs no prior build of core.
 */
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';

const src = fileURLToPath(new URL('./src', import.meta.url));

export default defineConfig({
  root: src,
  base: '/',
  publicDir: false,
  resolve: { conditions: ['aar-source', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npm run dev -w packages/console`: the pages from source, the API of a running `aar serve` (AAR_API_URL)
  server: {
    proxy: Object.fromEntries(
      ['/v1', '/.well-known'].map((path) => [path, process.env.AAR_API_URL ?? 'http://127.0.0.1:8080']),
    ),
  },
  build: {
    // AAR_CONSOLE_OUT_DIR: the browser tests build into a scratch folder and serve that (never a stale dist/)
    outDir: process.env.AAR_CONSOLE_OUT_DIR ?? fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2023',
    sourcemap: false,
    rolldownOptions: {
      input: { console: `${src}/console/index.html`, simulator: `${src}/simulator/index.html` },
    },
  },
});
