// First: before any zod schema is built (see the file).
import './zod-jitless.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { installServeBridge } from './serve-bridge.js';

// Before the app asks for window.egress: in a browser, serve mode's WebSocket provides it.
installServeBridge();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
