/**
 * An "outside world" the test run makes for itself: a second network namespace joined to
 * the test namespace by a veth pair, with an HTTP echo server in it that answers the
 * caller's address (what an ipify-style service does). A guest reaches it through the test
 * namespace, which routes between libvirt's bridge and the veth, so what the echo sees is
 * the address traffic leaves the host by: the proxy's exit address.
 *
 * No NAT rule is added here: libvirt's NAT network already masquerades everything from its
 * subnet to any other destination (`LIBVIRT_PRT … -s SUBNET ! -d SUBNET -j MASQUERADE`, no
 * output interface), the namespace forwards (libvirt sets ip_forward when it starts the
 * network) and LIBVIRT_FWO accepts from the bridge to any interface, so the veth's
 * connected route is all a guest needs. {@link masqueradePackets} reads that rule's counter,
 * which a test uses to show it was that rule that rewrote the source.
 *
 * Everything is named for this process (`egtest-echo-<pid>`, `egtv<pid>a/b`) and
 * {@link EchoNamespace.remove} takes it all away; deleting the namespace also deletes the
 * veth pair, and the test namespace's end is deleted explicitly as well.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';

export interface EchoNamespace {
  /** The namespace holding the echo server. */
  netns: string;
  /** The test namespace's end of the veth: the address a masqueraded guest leaves by. */
  hostSideAddress: string;
  /** The echo server's address, on the other end. */
  echoAddress: string;
  /** `http://ECHO:PORT/`: answers the caller's address as plain text. */
  url: string;
  /** The caller addresses the echo server answered so far (its own log). */
  callers(): string[];
  /**
   * The control experiment: lets traffic from `subnet` to the echo server past libvirt's
   * MASQUERADE (a RETURN ahead of it in the test namespace's nat POSTROUTING) and gives the
   * echo namespace the route back to `subnet` that an unmasqueraded path needs. Returns the
   * undo, which {@link remove} also runs.
   */
  bypassMasquerade(subnet: string): () => void;
  /** Stops the server, deletes the namespace and the veth pair; safe to call twice, and after a half-made setup. */
  remove(): void;
}

const ip = (args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });

/** Answers every GET with the peer's address (and logs it on stdout, one a line). */
const ECHO_SERVER = [
  'import http.server, sys',
  'class H(http.server.BaseHTTPRequestHandler):',
  '    def do_GET(self):',
  '        body = self.client_address[0].encode()',
  '        print(self.client_address[0], flush=True)',
  '        self.send_response(200)',
  "        self.send_header('content-type', 'text/plain')",
  "        self.send_header('content-length', str(len(body)))",
  '        self.end_headers()',
  '        self.wfile.write(body)',
  '    def log_message(self, *a):',
  '        pass',
  'http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), H).serve_forever()',
].join('\n');

/**
 * Makes the echo namespace beside `testNetns`, on a /30 of 10.254.0.0/16 chosen by this
 * process's id (so a run left behind by a dead process never holds the same addresses), and
 * starts the echo server on `port`. Resolves once the server answers from the test namespace.
 */
export async function echoNamespace(testNetns: string, port = 18092): Promise<EchoNamespace> {
  reapDeadRuns();
  const pid = process.pid;
  const netns = `egtest-echo-${pid}`;
  // Interface names are at most 15 characters: "egtv" + up to 7 digits + "a".
  const [near, far] = [`egtv${pid}a`, `egtv${pid}b`];
  const slot = (pid % 16384) * 4;
  const net = `10.254.${slot >> 8}.${slot & 255}`;
  const [a, b, c] = net.split('.');
  const hostSideAddress = `${a}.${b}.${c}.${(slot & 255) + 1}`;
  const echoAddress = `${a}.${b}.${c}.${(slot & 255) + 2}`;
  let server: ChildProcess | undefined;
  let log = '';
  let undoBypass: (() => void) | undefined;
  const bypassMasquerade = (subnet: string) => {
    const iptables = (op: '-I' | '-D', at: string[]) =>
      execFileSync(
        'ip',
        [
          'netns',
          'exec',
          testNetns,
          'iptables',
          '-t',
          'nat',
          op,
          'POSTROUTING',
          ...at,
          '-s',
          subnet,
          '-d',
          `${echoAddress}/32`,
          '-j',
          'RETURN',
        ],
        { stdio: 'ignore', timeout: 10_000 },
      );
    iptables('-I', ['1']);
    undoBypass = () => {
      undoBypass = undefined;
      for (const undo of [() => iptables('-D', []), () => ip(['-n', netns, 'route', 'del', subnet])]) {
        try {
          undo();
        } catch {
          // not there (any more)
        }
      }
    };
    ip(['-n', netns, 'route', 'add', subnet, 'via', hostSideAddress]);
    return () => undoBypass?.();
  };
  const remove = () => {
    undoBypass?.();
    server?.kill();
    server = undefined;
    try {
      ip(['-n', testNetns, 'link', 'del', near]);
    } catch {
      // gone already (or never made)
    }
    try {
      ip(['netns', 'del', netns]);
    } catch {
      // gone already (or never made)
    }
  };
  try {
    ip(['netns', 'add', netns]);
    ip(['-n', netns, 'link', 'set', 'lo', 'up']);
    ip(['link', 'add', near, 'netns', testNetns, 'type', 'veth', 'peer', 'name', far, 'netns', netns]);
    ip(['-n', testNetns, 'addr', 'add', `${hostSideAddress}/30`, 'dev', near]);
    ip(['-n', testNetns, 'link', 'set', near, 'up']);
    ip(['-n', netns, 'addr', 'add', `${echoAddress}/30`, 'dev', far]);
    ip(['-n', netns, 'link', 'set', far, 'up']);
    server = spawn('ip', ['netns', 'exec', netns, 'python3', '-c', ECHO_SERVER, echoAddress, String(port)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    server.stdout?.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    const url = `http://${echoAddress}:${port}/`;
    await answering(testNetns, url);
    return {
      netns,
      hostSideAddress,
      echoAddress,
      url,
      callers: () => log.split('\n').filter(Boolean),
      bypassMasquerade,
      remove,
    };
  } catch (err) {
    remove();
    throw err;
  }
}

/** True when process `pid` exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes echo namespaces left by test processes that died before their cleanup ran (killed
 * by a timeout, say): those whose process is gone and in which nothing runs any more.
 * Deleting one deletes its veth pair with it.
 */
function reapDeadRuns(): void {
  const names = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8', timeout: 10_000 })
    .split('\n')
    .map((l) => /^egtest-echo-(\d+)\b/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  for (const [netns, pid] of names) {
    if (
      alive(Number(pid)) ||
      execFileSync('ip', ['netns', 'pids', netns], { encoding: 'utf8', timeout: 10_000 }).trim()
    )
      continue;
    ip(['netns', 'del', netns]);
  }
}

/** Waits (up to 10 s) for `url` to answer from inside `netns`. */
async function answering(netns: string, url: string): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      execFileSync('ip', ['netns', 'exec', netns, 'curl', '-sSf', '--max-time', '2', url], {
        stdio: 'ignore',
        timeout: 5_000,
      });
      return;
    } catch (err) {
      if (Date.now() > until)
        throw new Error(`the echo server at ${url} does not answer from ${netns}`, { cause: err });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * The packets libvirt's TCP MASQUERADE rule for `subnet` has rewritten so far, in
 * `netns`'s nat table (undefined: there is no such rule). NAT rules see a connection's
 * first packet only, so each masqueraded connection adds one.
 */
export function masqueradePackets(netns: string, subnet: string): number | undefined {
  const out = execFileSync('ip', ['netns', 'exec', netns, 'iptables-save', '-c', '-t', 'nat'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  const esc = subnet.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const rule = new RegExp(`^\\[(\\d+):\\d+\\] -A LIBVIRT_PRT -s ${esc} ! -d ${esc} -p tcp -j MASQUERADE`, 'm').exec(
    out,
  );
  return rule ? Number(rule[1]) : undefined;
}
