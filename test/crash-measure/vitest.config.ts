import { defineConfig } from 'vitest/config';

/** The crash measurement (bench/crash-measure.mjs): not part of `npm test`, it takes minutes. */
export default defineConfig({
  test: {
    include: ['test/crash-measure/crash-measure.run.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
  },
});
