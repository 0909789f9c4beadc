import { builtinModules } from 'node:module';
import { type Plugin, defineConfig } from 'vite';

/**
 * Native add-ons stay out: ssh2 (its crypto binding, cpu-features) and ws (bufferutil,
 * utf-8-validate) load them inside try/catch and fall back to plain JavaScript, which is what
 * the app has always run (electron-builder's npmRebuild is off: build/electron-builder.yml).
 * Each becomes a module that throws when required, so the fallback is taken at once.
 */
const OPTIONAL_NATIVE = new Set(['cpu-features', 'bufferutil', 'utf-8-validate']);
function leaveOutNativeAddOns(): Plugin {
  return {
    name: 'leave-out-native-add-ons',
    enforce: 'pre',
    resolveId(id) {
      return OPTIONAL_NATIVE.has(id) || id.endsWith('.node') ? `\0native:${id}` : null;
    },
    load(id) {
      return id.startsWith('\0native:')
        ? `throw new Error(${JSON.stringify(`${id.slice(8)}: native add-ons are not bundled`)});`
        : null;
    },
  };
}

// The Electron main process, bundled into one ES module with every dependency inside it
// (only `electron` and Node's built-ins stay imports). Why: in a package the app runs from
// app.asar, and Electron's ESM loader has had one regression after another resolving
// packages from inside an asar (electron/electron#40211 in 28, #41241 in 29, #45896 in 35);
// a bundle resolves no package at run time, so those bugs have nothing to act on.
// test/unit/packaging/main-bundle.test.ts checks the bundle's imports.
//
// The bundle is written to dist/electron/bundle/: at the same depth as the modules whose
// paths it carries (`new URL('../../renderer/', import.meta.url)` in electron/shell/app.ts,
// electron/shell/window.ts, electron/serve/static-files.ts, electron/cli/version.ts), so that
// each still names the same file from inside the bundle.
export default defineConfig({
  plugins: [leaveOutNativeAddOns()],
  build: {
    outDir: 'dist/electron/bundle',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: false,
    ssr: 'electron/main.ts',
    rollupOptions: {
      external: ['electron', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
      output: { format: 'es', entryFileNames: 'main.js', inlineDynamicImports: true },
    },
  },
  ssr: { noExternal: true, target: 'node' },
});
