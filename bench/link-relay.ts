/**
 * The host side of benchmark (k)'s shaped link, run inside `egbench-h` by shaped-link.ts:
 * `node link-relay.js ADDRESS SSH_PORT UNIX_SOCKET SINK_PORT`.
 *  - ADDRESS:SSH_PORT relays each connection to UNIX_SOCKET (the bench process, which
 *    relays it on to the sshd on 127.0.0.1: a path crosses namespaces, a port does not);
 *  - ADDRESS:SINK_PORT is a plain transfer's end: it reads an 8-byte big-endian length,
 *    then that many bytes, and answers `ok` once it has them all (the sender times that).
 * Prints one line once both listen.
 */
import { connect, createServer } from 'node:net';

const [address, sshPort, socket, sinkPort] = process.argv.slice(2);
if (!address || !sshPort || !socket || !sinkPort) {
  process.stderr.write('usage: link-relay ADDRESS SSH_PORT UNIX_SOCKET SINK_PORT\n');
  process.exit(2);
}

const relay = createServer((c) => {
  const s = connect(socket);
  c.pipe(s).pipe(c);
  c.on('error', () => s.destroy());
  s.on('error', () => c.destroy());
});

const sink = createServer((c) => {
  let header = Buffer.alloc(0);
  let want = -1;
  let got = 0;
  c.on('data', (chunk: Buffer) => {
    if (want < 0) {
      header = Buffer.concat([header, chunk]);
      if (header.length < 8) return;
      want = Number(header.readBigUInt64BE(0));
      got = header.length - 8;
    } else {
      got += chunk.length;
    }
    if (got >= want) c.end('ok\n');
  });
  c.on('error', () => c.destroy());
});

let listening = 0;
const ready = (): void => {
  if (++listening === 2) process.stdout.write('ready\n');
};
relay.listen(Number(sshPort), address, ready);
sink.listen(Number(sinkPort), address, ready);
