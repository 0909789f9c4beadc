import { defineConfig } from 'vitest/config';

// Test lanes (docs/testing.md). `npm test` runs them through test/run.sh, which first
// brings up the test environment the libvirt and guest lanes need.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
    ],
  },
});
