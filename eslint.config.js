// Lint rules. The layering rules are the ones that matter most: nothing below the Electron
// shell imports Electron, and the renderer reaches the backend only through the bridge.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const noElectron = {
  paths: [
    {
      name: 'electron',
      message: 'Only electron/main.ts, electron/preload.ts and electron/shell/ may import Electron.',
    },
  ],
};

/** The renderer, anywhere: no Node built-in, nothing of electron/. */
const rendererBoundary = {
  group: ['node:*', '**/electron/**'],
  message: 'The renderer reaches the backend only through window.egress.',
};

/** Import patterns for the sibling folders of electron/ named (relative imports, any depth), and the renderer. */
function above(folders) {
  return [...folders.map((f) => `**/${f}/**`), '**/renderer/**'];
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'release/**', 'test-results/**', 'docs/screenshots/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
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
      'no-restricted-imports': [
        'error',
        {
          ...noElectron,
          patterns: [
            { group: ['node:*'], message: 'shared/ also runs in the renderer: no Node built-ins.' },
            {
              group: ['**/electron/**', '**/renderer/**'],
              message: 'shared/ is the contract every layer imports: it imports none of them.',
            },
          ],
        },
      ],
    },
  },
  // The layers of ../shared/design.md, bottom up: what a layer may not import (a test in
  // test/unit/suite/layers.test.ts proves each rule fails a violation).
  {
    files: ['electron/services/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...noElectron,
          patterns: [
            {
              group: above(['ipc', 'serve', 'cli', 'shell', 'start']),
              message: 'electron/services is plain Node below the router and front ends: it imports none of them.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/libvirt/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...noElectron,
          patterns: [
            {
              group: above(['services', 'ipc', 'serve', 'cli', 'shell', 'start']),
              message:
                'electron/libvirt is the protocol client: it knows no service or front end (a transport only as a Dialer).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/transport/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...noElectron,
          patterns: [
            {
              group: above(['libvirt', 'services', 'ipc', 'serve', 'cli', 'shell', 'start']),
              message: 'electron/transport gives byte streams: it knows neither libvirt nor the services.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': ['error', { ...noElectron, patterns: [rendererBoundary] }],
    },
  },
  {
    // Views render and ask: what they show is a store's, and what they change goes through a
    // store action (renderer/stores/), so the api stays with the stores (issue 39).
    files: ['renderer/views/**/*.{ts,tsx}', 'renderer/App.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...noElectron,
          patterns: [
            rendererBoundary,
            {
              group: ['**/api', '**/api.js', '**/stores/store-api', '**/stores/store-api.js'],
              message: 'A view calls no backend: use a store action (renderer/stores/), which reaches it.',
            },
          ],
        },
      ],
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
