import { defineConfig } from 'vitest/config';

// Two projects: the fast unit/route suites, and the storage contract suite, which the CI runs
// once per database (AAR_TEST_DIALECTS=sqlite,postgres). The storage suite is part of `npm test` too.
// Workspace packages resolve to their TypeScript sources (the `aar-source` export condition), never to a possibly
// stale dist/: tests always run the code as written.
const SOURCE_CONDITIONS = ['aar-source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions: SOURCE_CONDITIONS },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS, externalConditions: ['aar-source'] } },
  test: {
    // processes the tests spawn (`aar serve`, the CLIs) run the sources too, not dist/ (packages/server/bin/aar.js)
    env: { AAR_FROM_SOURCE: '1' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/test/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: ['packages/*/test/storage/**', '**/node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'storage',
          include: ['packages/*/test/storage/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
