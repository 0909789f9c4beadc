/**
 * Bench (l)'s tight probe, run inside the test namespace (`ip netns exec NS node
 * port-watch.js ADDRESS PORT`): a TCP connect to the guest's proxy port every
 * {@link GAP_MS} until one is accepted, then one line of JSON: when (Date.now(), the
 * clock every process on this machine shares), after how many attempts, and whether the
 * very first attempt was accepted (then the port was open before the watch began, and
 * the opening itself was not seen). Gives up after the time in argv[4] (ms).
 */
import { connect } from 'node:net';

/** Between a refused connect and the next: the probe's resolution. A closed port on a live guest refuses at once (RST). */
const GAP_MS = 10;
/** One attempt's bound: a guest that does not answer at all (still booting its network) drops the SYN. */
const ATTEMPT_MS = 250;

function attempt(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    const timer = setTimeout(() => done(false), ATTEMPT_MS);
    function done(open: boolean): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(open);
    }
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function main(): Promise<void> {
  const [address, portArg, limitArg] = process.argv.slice(2);
  const port = Number(portArg);
  if (!address || !Number.isInteger(port) || port <= 0 || port > 65535)
    throw new Error('usage: port-watch ADDRESS PORT [LIMIT_MS]');
  const until = Date.now() + Number(limitArg ?? 600_000);
  for (let attempts = 1; ; attempts++) {
    if (await attempt(address, port)) {
      process.stdout.write(`${JSON.stringify({ openAt: Date.now(), attempts, openAtFirst: attempts === 1 })}\n`);
      return;
    }
    if (Date.now() > until) throw new Error(`${address}:${port} did not accept a connection in time`);
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`port-watch: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
