export * from './credentials-store.js';
