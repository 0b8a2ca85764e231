import { defineConfig } from 'vitest/config';

// Two projects: the fast unit/route suites, and the storage contract suite, which the CI runs
// once per database (AAR_TEST_DIALECTS=sqlite,postgres). The storage suite is part of `npm test` too.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/test/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: ['packages/*/test/storage/**', '**/node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
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
