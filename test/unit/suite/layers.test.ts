/**
 * The layer rules of eslint.config.js fail a violation (issue 17): each case lints one
 * import as if it were written in a file of that layer, with the project's own config.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/dist.js';

const eslint = new ESLint({ cwd: repoRoot });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  const violations: Array<[string, string]> = [
    ['renderer/views/X.tsx', "import { x } from '../../electron/services/app/app-service.js';"],
    ['renderer/stores/x.ts', "import { readFileSync } from 'node:fs';"],
    ['renderer/views/X.tsx', "import { windowApi } from '../api.js';"],
    ['renderer/views/inspector/X.tsx', "import { windowApi } from '../../api.js';"],
    ['renderer/App.tsx', "import { windowApi } from './api.js';"],
    ['renderer/views/X.tsx', "import { storeApi } from '../stores/store-api.js';"],
    ['renderer/views/X.tsx', "import { readFileSync } from 'node:fs';"],
    ['renderer/x.ts', "import { ipcRenderer } from 'electron';"],
    ['shared/x.ts', "import { x } from '../electron/libvirt/index.js';"],
    ['shared/x.ts', "import { x } from '../renderer/api.js';"],
    ['electron/services/app/x.ts', "import { x } from '../../ipc/router.js';"],
    ['electron/services/provider/kvm/x.ts', "import { x } from '../../../cli/io.js';"],
    ['electron/services/x.ts', "import { app } from 'electron';"],
    ['electron/libvirt/x.ts', "import { x } from '../services/hosts/host-info.js';"],
    ['electron/transport/x.ts', "import { x } from '../libvirt/index.js';"],
    ['electron/transport/x.ts', "import { x } from '../services/log/logger.js';"],
  ];
  it.each(violations)('%s: %s is refused', async (file, code) => {
    expect(await restricted(file, code)).not.toEqual([]);
  });

  const allowed: Array<[string, string]> = [
    ['renderer/views/X.tsx', "import { x } from '../../shared/config.js';"],
    ['renderer/views/X.tsx', "import { pullImage } from '../stores/catalog-actions.js';"],
    ['renderer/stores/x.ts', "import { windowApi } from '../api.js';"],
    ['electron/services/app/x.ts', "import { x } from '../../libvirt/index.js';"],
    ['electron/libvirt/x.ts', "import { x } from '../transport/dialer.js';"],
    ['electron/ipc/x.ts', "import { x } from '../services/app/app-service.js';"],
  ];
  it.each(allowed)('%s: %s is allowed', async (file, code) => {
    expect(await restricted(file, code)).toEqual([]);
  });
});
