/**
 * `egress-desk serve`: the app in any browser. Serves the built renderer and the IPC
 * contract on 127.0.0.1, behind the one-time link it prints, until Ctrl-C or SIGTERM.
 */
import type { Command } from 'commander';
import { createAppServices } from '../../ipc/app-services.js';
import { logBackend } from '../../ipc/backend-log.js';
import { openBrowser } from '../../serve/open-browser.js';
import { type ServeServer, startServeServer } from '../../serve/server.js';
import { BUILT_RENDERER_DIR, rendererIsBuilt } from '../../serve/static-files.js';
import type { CommandKit } from '../kit.js';
import { CliError, EXIT } from '../io.js';
import { VERSION } from '../version.js';

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(port) || port > 65535) {
    throw new CliError(`--port must be a port number from 0 to 65535 (0 picks a free one), not "${text}"`, EXIT.usage);
  }
  return port;
}

/** How long serve waits for the backend to close after Ctrl-C or SIGTERM. */
const CLOSE_DEADLINE_MS = 5_000;

/** Resolves on the first SIGINT or SIGTERM, then stops listening for them. */
function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export function registerServeCommand(program: Command, kit: CommandKit): void {
  program
    .command('serve')
    .description('open the app in any browser: serves it on 127.0.0.1 behind a one-time link')
    .option('--port <n>', 'port to listen on (default: any free port)')
    .option('--no-open', 'only print the link; do not open a browser')
    .action(
      kit.action(async (ctx, opts: { port?: string; open: boolean }) => {
        const port = opts.port === undefined ? 0 : parsePort(opts.port);
        if (!rendererIsBuilt(BUILT_RENDERER_DIR)) {
          throw new CliError(
            `the app is not built (${BUILT_RENDERER_DIR} has no index.html): run npm run build`,
            EXIT.failed,
          );
        }
        const services = createAppServices(ctx.dataDir, 'serve', { version: VERSION, configFile: ctx.configFile });
        const log = ctx.log;
        log.info({ version: VERSION, dataDir: ctx.dataDir, config: ctx.configFile }, 'serve: starting');
        // Host state changes, task outcomes and failed calls go to the log file (never a call's input).
        const backend = logBackend(services.router, log);
        let server: ServeServer;
        try {
          server = await startServeServer({ rendererDir: BUILT_RENDERER_DIR, router: backend.router, log, port });
        } catch (err) {
          backend.stop();
          await services.close();
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EADDRINUSE')
            throw new CliError(
              `port ${port} on 127.0.0.1 is in use: choose another with --port, or 0 for any free one`,
              EXIT.failed,
            );
          throw err;
        }
        // Listen for signals before printing: whoever reads the link may stop us right away.
        const stopped = untilStopped();
        log.info({ port: server.port, config: ctx.configFile }, 'serve: listening on 127.0.0.1');
        ctx.io.stdout(`${server.url}\n`);
        if (opts.open && (await openBrowser(server.url, ctx.io.env))) {
          ctx.io.stderr('opened in your browser (the link works once)\n');
        }
        ctx.io.stderr('press Ctrl-C to stop\n');
        const signal = await stopped;
        log.info({ signal }, 'serve: stopping');
        await server.close();
        backend.stop();
        // Tasks cancelled, watchers, samplers and monitors stopped, every host connection
        // closed: nothing of the backend keeps the process alive. Bounded, so that a host that
        // does not answer its close can never keep Ctrl-C from ending serve.
        const closed = await Promise.race([
          services.close().then(() => true),
          new Promise<false>((r) => setTimeout(() => r(false), CLOSE_DEADLINE_MS).unref()),
        ]);
        if (!closed) {
          log.warn(`serve: the backend did not close within ${CLOSE_DEADLINE_MS / 1000} s; exiting anyway`);
          setImmediate(() => process.exit(EXIT.ok));
        } else {
          // Closed: the process ends when its last handle does; an unref'd timer ends it anyway if one lingers.
          setTimeout(() => process.exit(EXIT.ok), 2_000).unref();
        }
        log.info('serve: stopped');
        return EXIT.ok;
      }),
    );
}
