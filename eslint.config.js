// Lint rules. The layering rules are the ones that matter most: nothing below the Electron
// shell imports Electron, and the renderer reaches the backend only through the bridge.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const noElectron = {
  paths: [{ name: 'electron', message: 'Only electron/main.ts, electron/preload.ts and electron/shell/ may import Electron.' }],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'release/**', 'test-results/**', 'docs/screenshots/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-console': 'error',
    },
  },
  {
    files: ['electron/**/*.ts', 'shared/**/*.ts', 'bench/**/*.ts'],
    ignores: ['electron/main.ts', 'electron/preload.ts', 'electron/shell/**'],
    rules: { 'no-restricted-imports': ['error', noElectron] },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { ...noElectron, patterns: [{ group: ['node:*'], message: 'shared/ also runs in the renderer: no Node built-ins.' }] }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': ['error', { ...noElectron, patterns: [{ group: ['node:*', '../electron/*'], message: 'The renderer reaches the backend only through window.egress.' }] }],
    },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.mjs', 'bin/**/*.js', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Tests edit fixtures freely; the boundary rule is for product code.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
