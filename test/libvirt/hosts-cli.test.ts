import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { HostStatus } from '../../shared/hosts.js';
import { runCliProcess } from '../support/cli.js';
import { testEnv } from '../support/env.js';
import { tempDir } from '../support/temp-dir.js';

const env = testEnv();
let home: string;

function config(hosts: string): string {
  const file = join(home, 'config.yaml');
  writeFileSync(file, `type: kvm\nkvm:\n  hosts:\n${hosts}  machineTypes:\n    small: { vcpus: 1, memoryMiB: 512 }\n`);
  return file;
}
/** This machine through the environment's libvirt socket (the run's, not a path written down here). */
const localHost = () => `    - { name: local, address: local, socketPath: ${env.EGRESS_TEST_SOCKET} }\n`;
const sshHost = (name: string, port = env.EGRESS_TEST_SSH_PORT) =>
  `    - { name: ${name}, address: 127.0.0.1, sshPort: ${port}, sshUser: root, identityFile: ${env.EGRESS_TEST_SSH_KEY}, pool: ${env.EGRESS_TEST_POOL} }\n`;

async function status(file: string): Promise<{ code: number | null; hosts: HostStatus[]; stderr: string }> {
  const r = await runCliProcess(['--config', file, 'hosts', 'status', '--json'], {
    HOME: home,
    EGRESS_DESK_HOME: join(home, 'data'),
  });
  return { code: r.code, hosts: JSON.parse(r.stdout) as HostStatus[], stderr: r.stderr };
}

beforeEach(() => {
  home = tempDir('egress-hosts-');
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
});

describe('egress-desk hosts status', () => {
  it('reports the local host and an SSH host, and still reports the others when one fails (exit 1)', async () => {
    copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS, join(home, '.ssh', 'known_hosts'));
    const r = await status(config(`${localHost()}${sshHost('loop')}${sshHost('closed', '1')}`));
    expect(r.code).toBe(1);
    const [local, loop, closed] = r.hosts;
    for (const h of [local!, loop!]) {
      expect(h.state).toBe('connected');
      expect(h.info?.libvirtVersion).toMatch(/^\d+\.\d+\.\d+$/);
      expect(h.info?.hypervisor).toBe('QEMU');
      expect(h.info?.pools.map((p) => p.name)).toContain(env.EGRESS_TEST_POOL);
      expect(h.info?.networks.map((n) => n.name)).toContain(env.EGRESS_TEST_NETWORK);
      expect(h.info?.cpus).toBeGreaterThan(0);
      expect(h.info?.freeMemoryBytes).toBeGreaterThan(0);
    }
    expect(local!.via).toBe(`unix:${env.EGRESS_TEST_SOCKET}`);
    expect(loop!.via).toMatch(/^ssh:\/\/root@127\.0\.0\.1:\d+/);
    expect(loop!.info?.hostname).toBe(local!.info?.hostname);
    expect(closed).toMatchObject({ state: 'error', message: expect.stringMatching(/refused|connect/i) });
  });

  it('an unknown host key is reported with its SHA256 fingerprint, and nothing is trusted silently', async () => {
    const r = await status(config(sshHost('loop')));
    expect(r.code).toBe(1);
    expect(r.hosts[0]).toMatchObject({ state: 'host-key-unknown', fingerprint: env.EGRESS_TEST_HOST_KEY_SHA256 });
  });

  it('a changed host key is refused', async () => {
    copyFileSync(env.EGRESS_TEST_KNOWN_HOSTS_MISMATCH, join(home, '.ssh', 'known_hosts'));
    const r = await status(config(sshHost('loop')));
    expect(r.code).toBe(1);
    expect(r.hosts[0]).toMatchObject({ state: 'error', message: expect.stringMatching(/host key|changed|mismatch/i) });
  });

  it('prints a readable report without --json', async () => {
    const r = await runCliProcess(['--config', config(localHost()), 'hosts', 'status'], {
      HOME: home,
      EGRESS_DESK_HOME: join(home, 'data'),
    });
    expect(r.code).toBe(0);
    const head = `local  unix:${env.EGRESS_TEST_SOCKET}  connected\n  hostname`;
    expect(r.stdout.slice(0, head.length)).toBe(head);
    expect(r.stdout).toMatch(/libvirt +\d+\.\d+\.\d+/);
  });
});
