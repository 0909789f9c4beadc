import { defineConfig } from 'vitest/config';

// Test lanes (docs/testing.md). `npm test` runs them through test/run.sh, which first
// brings up the test environment (test/env/up.sh) that the libvirt lane needs.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // Property tests and child-process CLI tests share 2 cores with the other files.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'libvirt',
          include: ['test/libvirt/**/*.test.ts'],
          environment: 'node',
          // One libvirtd and one sshd are shared: files run one after another.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          // Chromium and `egress-desk serve` as real processes: one file at a time, generous time.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'guest',
          include: ['test/guest/**/*.test.ts'],
          environment: 'node',
          // Real guests under TCG on 2 cores: one at a time, minutes each.
          fileParallelism: false,
          testTimeout: 15 * 60_000,
          hookTimeout: 20 * 60_000,
        },
      },
    ],
  },
});
