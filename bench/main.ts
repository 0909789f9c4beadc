/**
 * `npm run bench`: every budget of docs/performance.md measured beside its peer in the
 * same run, as a ratio (these machines are noisy: absolute figures mean little).
 * `--json` prints `[{name, ours, peer, unit, ratio, target, met}]`; `--only a,c` picks.
 */
import { benchEnv } from './environment.js';
import { minimalClientRate } from './minimal-client.js';
import { pythonLibVersionRate } from './peers.js';
import { type BenchResult, formatTable, result } from './results.js';
import { oursPipelinedRate, oursSequentialRate } from './rpc.js';
import { uploadFigures } from './upload.js';

const CALLS = 20_000;
const WINDOW = 64;
const MIB = 1024 * 1024;

type Bench = (log: (line: string) => void) => Promise<BenchResult[]>;

const env = benchEnv();

const benches: Record<string, Bench> = {
  async a(log) {
    log(`(a) ${CALLS} sequential CONNECT_GET_LIB_VERSION: python3-libvirt, then ours`);
    const peer = pythonLibVersionRate(CALLS);
    const ours = await oursSequentialRate(env.EGRESS_TEST_SOCKET, CALLS);
    return [result({ name: '(a) sequential calls vs python3-libvirt', ours, peer, unit: 'calls/s', target: 1.0, note: 'libvirt C client (python3-libvirt 9.0), local socket' })];
  },
  async b(log) {
    log(`(b) ${CALLS} pipelined calls, ${WINDOW} in flight: ours, the daemon's ceiling (minimal client), python3-libvirt sequential`);
    const ours = await oursPipelinedRate(env.EGRESS_TEST_SOCKET, CALLS, WINDOW);
    const ceiling = await minimalClientRate(env.EGRESS_TEST_SOCKET, CALLS, WINDOW);
    const python = pythonLibVersionRate(CALLS);
    return [
      result({ name: '(b) pipelined calls vs daemon ceiling', ours, peer: ceiling, unit: 'calls/s', target: 0.9, note: 'ceiling = a minimal hand-rolled client, same window, same run; within 10 % is the budget' }),
      result({ name: '(b) pipelined calls vs python3-libvirt sequential', ours, peer: python, unit: 'calls/s', target: 3.0, note: `the daemon's own ceiling is ${(ceiling / python).toFixed(2)}× python3-libvirt here: a 3× target is above what libvirtd can serve on this machine` }),
    ];
  },
  async c(log) {
    log('(c) 1 GiB upload into a pool over SSH to 127.0.0.1: ours, virsh (OpenSSH), cp');
    const f = await uploadFigures(env, process.env.EGRESS_BENCH_DIR ?? '/var/tmp/egress-bench');
    const rate = (s: number) => f.bytes / MIB / s;
    return [
      result({ name: '(c) 1 GiB upload over SSH vs virsh qemu+ssh', ours: rate(f.oursSeconds), peer: rate(f.virshSeconds), unit: 'MiB/s', target: 1.0, note: `peak RSS during our upload ${(f.peakRssBytes / MIB).toFixed(0)} MB (budget < 200 MB)` }),
      result({ name: '(c) 1 GiB upload over SSH vs cp (disk limit)', ours: rate(f.oursSeconds), peer: rate(f.cpSeconds), unit: 'MiB/s', target: 0, note: 'for scale only: cp into the pool directory is the disk\'s limit' }),
    ];
  },
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const onlyArg = args.find((a) => a.startsWith('--only='))?.slice(7) ?? (args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined);
  const names = onlyArg ? onlyArg.split(',') : Object.keys(benches);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const results: BenchResult[] = [];
  for (const name of names) {
    const bench = benches[name];
    if (!bench) throw new Error(`unknown benchmark ${JSON.stringify(name)} (known: ${Object.keys(benches).join(', ')})`);
    results.push(...(await bench(log)));
  }
  process.stdout.write(json ? `${JSON.stringify(results, null, 2)}\n` : `${formatTable(results)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
