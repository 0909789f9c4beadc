import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The renderer: plain static files (no inline script, so the strict CSP holds), loaded by
// the Electron window from disk and by `egress-desk serve` over HTTP.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'chrome130',
    sourcemap: true,
  },
});
