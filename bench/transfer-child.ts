/**
 * The workstation of benchmark (k), run inside `egbench-ws` (shaped-link.ts) with one JSON
 * argument; prints `{"seconds": …}`. Each mode is what the app itself runs for it:
 *  - `fetch`: the launch's own planTransfer (the host's probe) and BaseImages.ensureFetched
 *    over one SSH connection to the host (libvirt through its unix-socket forward, the
 *    commands through exec channels): the host downloads, checks and libvirt copies;
 *  - `upload`: BaseImages.ensure from the local file, the upload through a libvirt stream
 *    over the same kind of connection: the bytes cross the shaped link;
 *  - `plain`: a bare TCP transfer across the link to the sink, to measure the shaping.
 */
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { LibvirtClient } from '../electron/libvirt/index.js';
import { BaseImages } from '../electron/services/provider/kvm/images/base-image.js';
import { ClientApi } from '../electron/services/provider/kvm/client-api.js';
import type { HostShell } from '../electron/services/provider/kvm/images/host-fetch-plan.js';
import { planTransfer } from '../electron/services/provider/kvm/images/host-fetch.js';
import { HostQueues } from '../electron/services/provider/kvm/images/host-queue.js';
import { SshConnectionPool, SshDialer } from '../electron/transport/index.js';
import { HOST_ADDRESS, SINK_PORT, SSH_PORT } from './shaped-link.js';

const Host = z.object({
  home: z.string(),
  key: z.string(),
  pool: z.string(),
  socket: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
const Input = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('plain'), bytes: z.number().int().positive() }),
  Host.extend({ mode: z.literal('upload'), file: z.string(), size: z.number().int().positive() }),
  Host.extend({ mode: z.literal('fetch'), url: z.url() }),
]);
type HostInput = z.infer<typeof Host>;

async function plain(bytes: number): Promise<number> {
  const block = randomBytes(1024 * 1024);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const s = connect(SINK_PORT, HOST_ADDRESS, () => {
      const header = Buffer.alloc(8);
      header.writeBigUInt64BE(BigInt(bytes));
      s.write(header);
      let left = bytes;
      const write = (): void => {
        while (left > 0) {
          const n = Math.min(left, block.length);
          left -= n;
          if (!s.write(block.subarray(0, n))) return void s.once('drain', write);
        }
      };
      write();
    });
    s.once('data', () => {
      resolve((performance.now() - started) / 1000);
      s.destroy();
    });
    s.once('error', reject);
  });
}

/** The host as the app reaches it: root over the relayed sshd, libvirt's socket forwarded. */
async function withHost<T>(
  input: HostInput,
  run: (h: { api: ClientApi; shell: HostShell; baseImages: BaseImages }) => Promise<T>,
): Promise<T> {
  const target = { address: HOST_ADDRESS, sshPort: SSH_PORT, sshUser: 'root', identityFile: input.key };
  const pool = new SshConnectionPool({ homeDir: input.home, env: { HOME: input.home }, systemConfigPath: null });
  const client = await LibvirtClient.connect(new SshDialer({ ...target, socketPath: input.socket }, pool), {
    uri: 'qemu:///system',
  });
  const shell: HostShell = async (command, signal) => pool.exec(await pool.resolve(target), command, signal);
  try {
    return await run({ api: new ClientApi(client), shell, baseImages: new BaseImages(new HostQueues()) });
  } finally {
    await client.close();
    await pool.close();
  }
}

async function main(): Promise<void> {
  const input = Input.parse(JSON.parse(process.argv[2] ?? 'null'));
  // Interrupted (the bench stops): the transfer is cancelled as a launch is, and cleans up on the host.
  const abort = new AbortController();
  const interrupted = (): void => abort.abort(new Error('interrupted'));
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);
  const { signal } = abort;
  let seconds: number;
  if (input.mode === 'plain') {
    seconds = await plain(input.bytes);
  } else if (input.mode === 'upload') {
    seconds = await withHost(input, async ({ api, baseImages }) => {
      const started = performance.now();
      const base = await baseImages.ensure(
        'bench',
        api,
        input.pool,
        { path: input.file, size: input.size, sha256: input.sha256, format: 'qcow2' },
        { signal },
      );
      if (!base.uploaded) throw new Error(`${base.volume.name} was already in the pool: nothing was uploaded`);
      return (performance.now() - started) / 1000;
    });
  } else {
    seconds = await withHost(input, async ({ api, shell, baseImages }) => {
      const started = performance.now();
      const plan = await planTransfer('fetch', { name: 'bench', address: HOST_ADDRESS }, input.url, shell, signal);
      if (plan.mode !== 'fetch') throw new Error('the host cannot fetch the image');
      const base = await baseImages.ensureFetched(
        'bench',
        api,
        input.pool,
        { url: input.url, sha256: input.sha256, format: 'qcow2', shell, probe: plan.probe },
        { signal },
      );
      if (!base.fetched) throw new Error(`${base.volume.name} was already in the pool: nothing was fetched`);
      return (performance.now() - started) / 1000;
    });
  }
  process.stdout.write(`${JSON.stringify({ seconds })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`transfer-child: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
