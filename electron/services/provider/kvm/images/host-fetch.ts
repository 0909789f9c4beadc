/**
 * Fetch-on-host, the running half: the SSH host downloads the image itself (its curl or
 * wget, over an exec channel of the host's shared SSH connection), checks its SHA-256
 * there, and libvirt copies it into the pool. The bytes never cross the workstation's link.
 *
 * Works for a non-root SSH user in the libvirt group: the user only writes into a directory
 * of their own; libvirt (which may write the pool) does the rest. The order matters:
 *  1. `mktemp -d` on the host (the user's staging directory);
 *  2. a transient dir pool over it, and in it an empty **raw** volume owned by the user
 *     (created before the download so that libvirt knows it as raw, see staging-xml.ts);
 *  3. the download into that file, polled for its size (the progress), then `sha256sum`;
 *  4. STORAGE_VOL_CREATE_XML_FROM into the target pool (a byte-for-byte copy), and a
 *     refresh of the target pool so that it reads the copied header (format, virtual size);
 *  5. whatever happened: the staged volume deleted, the pool destroyed, the directory removed.
 */
import { randomBytes } from 'node:crypto';
import { messageOf } from '../../../../../shared/errors.js';
import {
  type HostShell,
  type ImageTransfer,
  type ProbeReady,
  STAGING_DIR,
  type TransferPlan,
  downloadCommand,
  makeStagingDirCommand,
  parseDownload,
  parseProbe,
  pidFileIn,
  probeCommand,
  removeStagingDirCommand,
  sizeCommand,
  transferAfterProbe,
  transferWithoutProbe,
} from './host-fetch-plan.js';
import type { LibvirtApi, VolumeInfo } from '../libvirt-api.js';
import { buildFetchedBaseXml, buildStagedVolumeXml } from '../xml/staging-xml.js';

/** `fetch` was asked for, but the host cannot fetch this image: nothing was transferred. */
export class FetchImpossibleError extends Error {
  override readonly name = 'FetchImpossibleError';
}

/**
 * Fetch or upload, for one host and image: the setting, what is known without asking, and
 * otherwise the host's answer to the probe. `fetch` that turns out impossible is an error
 * ({@link FetchImpossibleError}); `auto` falls back to upload with the reason.
 */
export async function planTransfer(
  setting: ImageTransfer,
  host: { name: string; address: string },
  url: string,
  shell: HostShell | undefined,
  signal?: AbortSignal,
): Promise<TransferPlan> {
  let plan = transferWithoutProbe(setting, host, url);
  if (!plan && !shell) plan = { mode: 'upload', reason: 'no SSH session to run commands on the host' };
  if (!plan) {
    try {
      plan = transferAfterProbe(parseProbe(await shell!(probeCommand(url), signal)));
    } catch (err) {
      if (signal?.aborted) throw err;
      plan = { mode: 'upload', reason: `the host could not run the probe (${messageOf(err)})` };
    }
  }
  if (setting === 'fetch' && plan.mode === 'upload')
    throw new FetchImpossibleError(
      `${host.name} was set to fetch images itself, but ${plan.reason ?? 'it cannot'}: set it to auto or upload`,
    );
  return plan;
}

/** The name of the staged file in its pool. */
const STAGED = 'image';
/** How often the staged file's size is asked for while the host downloads. */
const POLL_MS = 1_000;

export interface HostFetchInput {
  api: LibvirtApi;
  shell: HostShell;
  probe: ProbeReady;
  /** The target pool and the base volume's name in it. */
  pool: string;
  name: string;
  url: string;
  sha256: string;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

/**
 * Downloads the image on the host and has libvirt copy it into `pool` as `name`. Resolves
 * with the volume as the refreshed pool reports it; rejects with a message for a person.
 * A STORAGE_VOL_EXIST error from the copy (another process made the base meanwhile) is
 * passed through as it is, for the caller to look again.
 */
export async function fetchOnHost(input: HostFetchInput): Promise<HostFetchResult> {
  const { api, shell, probe, signal } = input;
  const made = await shell(makeStagingDirCommand(), signal);
  const dir = made.stdout.trim();
  if (made.code !== 0 || !STAGING_DIR.test(dir))
    throw new Error(
      `the host could not make a staging directory (${made.stderr.trim() || dir || `exit ${made.code}`})`,
    );
  const stagePool = `egress-stage-${input.sha256.slice(0, 12)}-${randomBytes(4).toString('hex')}`;
  const cleanups: Array<{ what: string; run: () => Promise<unknown> }> = [
    { what: `staging directory ${dir} on the host`, run: () => removeDir(shell, dir) },
  ];
  const left: string[] = [];
  const cleanUp = async (): Promise<void> => {
    // Best effort, newest first; what stays is reported, never thrown over the launch's own outcome.
    for (const cleanup of cleanups)
      await cleanup.run().catch((err: unknown) => left.push(`${cleanup.what} (${messageOf(err)})`));
  };
  try {
    await api.createDirPool(stagePool, dir);
    cleanups.unshift({ what: `staging pool ${stagePool}`, run: () => api.destroyPool(stagePool) });
    const staged = await api.createVolume(stagePool, buildStagedVolumeXml(STAGED, probe.uid, probe.gid));
    cleanups.unshift({ what: `staged file ${staged.path}`, run: () => api.deleteVolume(stagePool, STAGED) });
    const result = await withPolling(
      shell(downloadCommand(probe.tool, input.url, staged.path, input.sha256, pidFileIn(dir)), signal),
      async () => {
        const size = Number((await shell(sizeCommand(staged.path), signal)).stdout.trim());
        if (Number.isFinite(size)) input.onProgress?.(Math.min(size, probe.size), probe.size);
      },
    );
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
    const downloaded = parseDownload(result, input.url, input.sha256);
    if (!downloaded.ok) throw new Error(downloaded.message);
    input.onProgress?.(downloaded.size, downloaded.size);
    await api.copyVolume(input.pool, buildFetchedBaseXml(input.name, downloaded.size), stagePool, STAGED);
    // The copy was declared raw; the refresh reads its header as libvirt does after an upload.
    await api.refreshPool(input.pool);
    const volume = await api.getVolume(input.pool, input.name);
    if (!volume)
      throw new Error(`the base volume ${input.name} vanished from pool ${input.pool} right after libvirt copied it`);
    await cleanUp();
    return { volume, left };
  } catch (err) {
    await cleanUp();
    if (left.length > 0) throw new Error(`${messageOf(err)}; left behind: ${left.join(', ')}`, { cause: err });
    throw err;
  }
}

/** What a fetch made, and what its cleanup could not remove (for the step's message). */
export interface HostFetchResult {
  volume: VolumeInfo;
  left: string[];
}

async function removeDir(shell: HostShell, dir: string): Promise<void> {
  const result = await shell(removeStagingDirCommand(dir));
  if (result.code !== 0) throw new Error(result.stderr.trim() || `exit ${result.code}`);
}

/** Awaits `work`, running `poll` every {@link POLL_MS} meanwhile (one at a time). */
async function withPolling<T>(work: Promise<T>, poll: () => Promise<void>): Promise<T> {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    poll()
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, POLL_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
