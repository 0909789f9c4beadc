/** A setup file of every lane (vitest.config.ts): the test file's temporary directories go when it ends. */
import { afterAll } from 'vitest';
import { removeTempDirs } from '../support/temp-dir.js';

// Registered before any hook of the test file, so it runs after all of theirs.
afterAll(() => removeTempDirs());
