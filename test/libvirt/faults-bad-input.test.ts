/**
 * The fault lane (issue 15, "Faults"), the app given something broken: each fault injected
 * for real on the test environment's own components, and what a person sees and what is
 * left behind checked on the real daemon. docs/reliability.md has the table of faults and
 * the tests that prove them; the other faults are in faults-connections.test.ts and
 * faults-resources.test.ts.
 *
 * - a guest that never boots (garbage as its disk), waited for;
 * - the config file broken by hand while the app runs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseVolumeName } from '../../electron/services/provider/kvm/names.js';
import type { ConfigState } from '../../shared/ipc.js';
import type { FleetListingView } from '../../shared/proxies.js';
import { TINY_MACHINE_TYPE, hypervisorState, localTestHost, providerHome, tinyImage } from '../support/provider.js';
import { testEnv } from '../support/env.js';
import { waitFor } from '../support/wait.js';
import { tempDir } from '../support/temp-dir.js';
import { type Backend, backend, removeLeftovers, useSystemClient } from './fault-support.js';

const env = testEnv();
const sys = useSystemClient();

describe('fault: a guest that never boots', () => {
  const LEFT = 'egtest-fault-noboot-a';
  const ROLLED = 'egtest-fault-noboot-b';
  let dir: string;
  let base: string;
  let home: ReturnType<typeof providerHome>;

  beforeAll(() => {
    dir = tempDir('egress-fault-noboot-');
    // Garbage as a disk: the firmware finds nothing to boot, no lease, no agent, no proxy.
    const path = join(dir, 'garbage.raw');
    const bytes = randomBytes(4 * 1024 * 1024);
    writeFileSync(path, bytes);
    const image = { path, sha256: createHash('sha256').update(bytes).digest('hex') };
    base = baseVolumeName(image.sha256, 'raw');
    home = providerHome('egress-fault-noboot-', {
      host: localTestHost(env),
      machineType: TINY_MACHINE_TYPE,
      image: { name: 'garbage', ...image },
    });
    writeFileSync(
      home.config,
      readFileSync(home.config, 'utf8').replace(/sha256: ([0-9a-f]{64}) \}/, 'sha256: $1, format: raw }'),
    );
  });

  afterAll(async () => {
    await removeLeftovers(sys, [LEFT, ROLLED], [base], dir);
  });

  it('--wait ends with the honest message; --rollback-on-timeout leaves nothing, without it the VM is left for inspection', async () => {
    const before = await hypervisorState(await sys.live());
    const rolled = await home.proxies(
      'launch',
      ROLLED,
      '--wait',
      '--timeout',
      '15',
      '--rollback-on-timeout',
      '--allow',
      '192.168.150.0/24',
    );
    expect(rolled.code, rolled.stderr).not.toBe(0);
    expect(rolled.stderr).toMatch(
      new RegExp(
        `proxy ${ROLLED} was not ready in time: no DHCP lease for [0-9a-f:]+ on network ${env.EGRESS_TEST_NETWORK} yet; guest agent not answering .*; it was removed \\(rollback on timeout\\)`,
      ),
    );
    expect(rolled.stderr).not.toMatch(/\n\s+at /);
    // Nothing of the launch is left; the (shared) base stays, as after any launch.
    expect(await hypervisorState(await sys.live())).toEqual({ ...before, volumes: [...before.volumes, base].sort() });

    const left = await home.proxies('launch', LEFT, '--wait', '--timeout', '15', '--allow', '192.168.150.0/24');
    expect(left.code, left.stderr).not.toBe(0);
    expect(left.stderr).toMatch(
      new RegExp(
        `proxy ${LEFT} was not ready in time: .*; it is left running for inspection \\(egress-desk proxies inspect ${LEFT}; delete it with egress-desk proxies delete ${LEFT}\\)`,
      ),
    );
    const listed = JSON.parse((await home.proxies('list', '--json')).stdout) as FleetListingView;
    expect(listed.proxies.find((p) => p.name === LEFT)).toMatchObject({ state: 'running' });
    expect((await home.proxies('delete', LEFT)).code).toBe(0);
    expect(await hypervisorState(await sys.live())).toEqual({ ...before, volumes: [...before.volumes, base].sort() });
  });
});

describe('fault: the config file is broken by hand while the app runs', () => {
  let dir: string;
  let app: Backend | undefined;
  let configFile: string;
  const states: ConfigState[] = [];

  beforeAll(async () => {
    dir = tempDir('egress-fault-config-');
    app = await backend('egress-fault-config-', tinyImage(dir));
    configFile = join(app.home, 'local-and-ssh.yaml');
    app.services.app.subscribe((event, payload) => {
      if (event === 'config:changed') states.push(payload as ConfigState);
    });
  });

  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps working on the last good config, says which line is wrong, never overwrites the file; a fixed file is taken', async () => {
    const { call } = app!;
    const good = readFileSync(configFile, 'utf8');
    expect((await call<Array<{ name: string }>>('machineTypes:list')).map((m) => m.name)).toEqual(['tiny']);
    await call<FleetListingView>('proxies:list');

    // A value the schema refuses, typed in an editor.
    const broken = good.replace('diskGiB: 1 }', 'diskGiB: -3 }');
    expect(broken).not.toBe(good);
    writeFileSync(configFile, broken);
    const line = broken.split('\n').findIndex((l) => l.includes('diskGiB: -3')) + 1;
    const reported = await waitFor('config:changed (broken)', 10_000, () => states.find((s) => s.issues?.length), 50);
    expect(reported).toMatchObject({ lastGood: true, issues: [{ path: 'kvm.machineTypes.tiny.diskGiB', line }] });
    expect(await call<ConfigState>('config:get')).toMatchObject({
      lastGood: true,
      issues: [{ path: 'kvm.machineTypes.tiny.diskGiB', line }],
    });

    // The app goes on with the last good config.
    expect((await call<Array<{ name: string }>>('machineTypes:list')).map((m) => m.name)).toEqual(['tiny']);
    const listing = await call<FleetListingView>('proxies:list');
    expect(listing.hosts.map((h) => h.ok)).toEqual([true, true]);
    expect((await call<Array<{ name: string; state: string }>>('hosts:list')).map((h) => h.name)).toEqual([
      'local',
      'loop',
    ]);

    // A change from the app would overwrite the person's file: refused, naming the problem; the file is as they left it.
    const edit = await call('machineTypes:save', { name: 'big', vcpus: 2, memoryMiB: 1024, diskGiB: 4 }).catch(
      (e: unknown) => e,
    );
    expect((edit as Error).message).toMatch(/kvm\.machineTypes\.tiny\.diskGiB/);
    expect(readFileSync(configFile, 'utf8')).toBe(broken);

    // A syntax error is reported with its line too.
    writeFileSync(configFile, `${good}  oops: [\n`);
    const syntax = await waitFor('config:changed (syntax)', 10_000, () => states.find((s) => s.error), 50);
    expect(syntax.error).toMatch(/line \d+, column \d+/);
    expect(syntax.lastGood).toBe(true);

    // Fixed by hand, with a new machine type: taken, without a restart.
    writeFileSync(
      configFile,
      good.replace(
        '    tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }',
        '    tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 }\n    big: { vcpus: 2, memoryMiB: 1024, diskGiB: 4 }',
      ),
    );
    const fixed = await waitFor('config:changed (fixed)', 10_000, () => states.find((s) => s.config), 50);
    expect(fixed.lastGood).toBeUndefined();
    expect((await call<Array<{ name: string }>>('machineTypes:list')).map((m) => m.name).sort()).toEqual([
      'big',
      'tiny',
    ]);
    expect((await call<FleetListingView>('proxies:list')).hosts.map((h) => h.ok)).toEqual([true, true]);
  });
});
