/**
 * The guest lane's page for ConsolePanel: the real panel, the real serve-mode bridge and the
 * app's styles, built by Vite in test/guest/console.test.ts and served by `egress-desk
 * serve`'s server over the real backend. Until the inspector hosts the panel, this is how
 * a browser reaches it; the proxy's name is fixed at build time.
 */
// First, as in renderer/main.tsx: before any zod schema is built.
import '../../../renderer/zod-jitless.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../../../renderer/styles.css';
import { installServeBridge } from '../../../renderer/serve-bridge.js';
import { ConsolePanel } from '../../../renderer/views/ConsolePanel.js';

declare const __CONSOLE_PROXY__: string;

installServeBridge();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <main className="content">
      <ConsolePanel name={__CONSOLE_PROXY__} />
    </main>
  </StrictMode>,
);
