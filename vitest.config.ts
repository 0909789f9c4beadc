import { defineConfig } from 'vitest/config';

// Test lanes (docs/testing.md). `npm test` runs them through test/run.sh, which first
// brings up the test environment (test/env/up.sh) that the libvirt lane needs.
//
// Projects with the same `sequence.groupOrder` run at the same time; groups run in order.
// The libvirt, browser and guest lanes share one libvirtd, and the browser lane checks
// what the fleet holds (an empty state, a table row): they get groups of their own, so
// that one lane's domains never appear in another's assertions.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          sequence: { groupOrder: 0 },
          environment: 'node',
          setupFiles: ['test/setup/temp-dirs.ts'],
          // Property tests and child-process CLI tests share 2 cores with the other files.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'libvirt',
          include: ['test/libvirt/**/*.test.ts'],
          sequence: { groupOrder: 0 },
          environment: 'node',
          setupFiles: ['test/setup/temp-dirs.ts', 'test/setup/hypervisor-guard.ts'],
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
          sequence: { groupOrder: 1 },
          environment: 'node',
          setupFiles: ['test/setup/temp-dirs.ts', 'test/setup/hypervisor-guard.ts'],
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
          sequence: { groupOrder: 2 },
          environment: 'node',
          setupFiles: ['test/setup/temp-dirs.ts', 'test/setup/hypervisor-guard.ts'],
          // Real guests under TCG on 2 cores: one at a time, minutes each.
          fileParallelism: false,
          testTimeout: 15 * 60_000,
          hookTimeout: 20 * 60_000,
        },
      },
    ],
  },
});
