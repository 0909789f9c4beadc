/** Errors of the app's areas that are not the config's (config-writes.ts) nor a console's (console-sessions.ts). */

/** A call named a host or image the config does not have. */
export class UnknownEntryError extends Error {
  override readonly name = 'UnknownEntryError';
}
