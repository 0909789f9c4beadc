/**
 * `proxies launch --count`'s refusals, in-process: the shared problem's field named the
 * command line's way (`--count`, `NAME`, `--strategy`) before its message, as it is; and
 * the help's step list read from LAUNCH_STEPS.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { usageError } from '../../../electron/cli/commands/proxies-launch.js';
import { EXIT } from '../../../electron/cli/io.js';
import { runCli } from '../../../electron/cli/program.js';
import { LAUNCH_STEPS, WAIT_STEPS, launchStepsText } from '../../../shared/launch-steps.js';
import { tempDir } from '../../support/temp-dir.js';

const home = tempDir('egress-launch-many-usage-');
const config = join(home, 'config.yaml');
// A host whose socket does not exist: a command that got as far as connecting would say so.
writeFileSync(
  config,
  `type: kvm\nkvm:\n  hosts:\n    - { name: local, address: local, socketPath: ${join(home, 'no-such-socket')} }\n  machineTypes:\n    small: { vcpus: 1, memoryMiB: 512 }\n  images:\n    img: { url: "file:///nonexistent/img.qcow2", sha256: "${'0'.repeat(64)}" }\n  defaults: { machineType: small, image: img }\n`,
);

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--config', config, 'proxies', ...args], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { HOME: home, EGRESS_DESK_HOME: join(home, 'data') },
    cwd: home,
  });
  return { code, stdout, stderr };
}

describe('proxies launch --count: the problem as the command line says it', () => {
  it('names the argument, then the shared message as it is', () => {
    expect(usageError({ field: 'count', message: 'must be a whole number from 1 to 50 (got 0)' })).toMatchObject({
      message: '--count: must be a whole number from 1 to 50 (got 0)',
      exitCode: EXIT.usage,
    });
    expect(usageError({ field: 'name', message: 'with a count above 1 the name needs {n}' }).message).toBe(
      'NAME: with a count above 1 the name needs {n}',
    );
    expect(
      usageError({ field: 'strategy', message: 'spread, pack, or a comma-separated list of host names (got "x!")' })
        .message,
    ).toBe('--strategy: spread, pack, or a comma-separated list of host names (got "x!")');
  });

  it('prints them before touching any host', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['launch', 'web', '--count', '3'],
        'NAME: with a count above 1 the name needs {n}, which becomes 1, 2, …, 3 (e.g. web-{n})',
      ],
      [['launch', 'Web-{n}', '--count', '2'], 'NAME: "Web-1" is not a lowercase DNS label'],
      [['launch', 'web-{n}', '--count', '0'], '--count: must be a whole number from 1 to 50 (got 0)'],
      [['launch', 'web-{n}', '--count', 'x'], '--count: must be a whole number from 1 to 50 (got NaN)'],
      [
        ['launch', 'web-{n}', '--count', '2', '--strategy', 'Everywhere!'],
        '--strategy: spread, pack, or a comma-separated list of host names (got "Everywhere!")',
      ],
    ];
    for (const [args, text] of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(EXIT.usage);
      expect(r.stderr, args.join(' ')).toContain(text);
      expect(r.stderr).not.toMatch(/not reachable|no-such-socket/);
    }
  });
});

describe('proxies launch --help', () => {
  it('lists every launch step, from LAUNCH_STEPS, the waiting ones last', async () => {
    expect(launchStepsText()).toBe(
      `${LAUNCH_STEPS.filter((s) => !(WAIT_STEPS as readonly string[]).includes(s)).join(', ')} (and with --wait: address, proxy)`,
    );
    const r = await cli('launch', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(`launch a proxy: ${launchStepsText()}`);
    for (const step of LAUNCH_STEPS) expect(r.stdout).toContain(step);
  });
});
