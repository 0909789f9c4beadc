import { defineConfig } from 'vite';

// The preload script runs sandboxed, where only CommonJS and a few Electron modules load:
// it is bundled into one CommonJS file with `electron` left external.
export default defineConfig({
  build: {
    outDir: 'dist/preload',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    lib: { entry: 'electron/preload.ts', formats: ['cjs'], fileName: () => 'preload.cjs' },
    rollupOptions: { external: ['electron'] },
  },
});
