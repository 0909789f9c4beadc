/** Waiting for Ctrl-C or SIGTERM: how the CLI's long-running commands (`metrics`, `gateway`, `gateway log --follow`) end. */

/** Resolves at the first SIGINT or SIGTERM, with both listeners removed again. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
