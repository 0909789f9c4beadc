/** Electron's entry point: thin on purpose (no Electron binary exists in CI; everything else is tested without it). */
import { startShell } from './shell/app.js';

startShell();
