/** The proxies commands' usage errors, through the built binary; no host is contacted. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_FORMATS } from '../../../shared/client-settings.js';
import { describe, expect, it } from 'vitest';
import { runCliProcess } from '../../support/cli.js';
import { tempDir } from '../../support/temp-dir.js';

function setup() {
  const home = tempDir('egress-proxies-cli-');
  const config = join(home, 'config.yaml');
  // A host whose socket does not exist: any command that got as far as connecting would say so.
  writeFileSync(
    config,
    `type: kvm\nkvm:\n  hosts:\n    - { name: local, address: local, socketPath: ${join(home, 'no-such-socket')} }\n  machineTypes:\n    small: { vcpus: 1, memoryMiB: 512 }\n  images:\n    img: { url: "file:///nonexistent/img.qcow2", sha256: "${'0'.repeat(64)}" }\n  defaults: { machineType: small, image: img }\n`,
  );
  return (...args: string[]) =>
    runCliProcess(['--config', config, 'proxies', ...args], { HOME: home, EGRESS_DESK_HOME: join(home, 'data') });
}

describe('egress-desk proxies (usage)', () => {
  it('lists every subcommand in its help', async () => {
    const r = await setup()('--help');
    expect(r.code).toBe(0);
    for (const c of [
      'launch',
      'list',
      'inspect',
      'start',
      'stop',
      'delete',
      'reconcile',
      'render',
      'top',
      'label',
      'expire',
      'client-settings',
    ])
      expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
  });

  it('refuses a bad name, a bad port and a bad timeout before touching any host', async () => {
    const cli = setup();
    const bad = await cli('launch', 'Bad_Name');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/name: must be a lowercase DNS label/);
    expect((await cli('launch', 'ok', '--port', 'x')).code).toBe(2);
    const t = await cli('launch', 'ok', '--wait', '--timeout', 'soon');
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/--timeout: must be a whole number of seconds/);
  });

  it('--kind and client-settings: refuse a bad kind, a bad format, no target and names with -l, before touching any host', async () => {
    const cli = setup();
    const kind = await cli('launch', 'ok', '--kind', 'socks4');
    expect(kind.code).toBe(2);
    expect(kind.stderr).toMatch(/--kind: must be one of http, socks5 \(got "socks4"\)/);
    const format = await cli('client-settings', 'ok', '--format', 'yaml');
    expect(format.code).not.toBe(0);
    expect(format.stderr).toMatch(/--format.*yaml.*invalid/);
    expect(format.stderr).toContain(`Allowed choices are ${CLIENT_FORMATS.join(', ')}`);
    const none = await cli('client-settings');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give proxy NAMEs, or -l key=value/);
    const both = await cli('client-settings', 'ok', '-l', 'env=prod');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/not both/);
  });

  it('launch --count: refuses a name without {n}, a bad count or strategy, and --host beside it, before touching any host', async () => {
    const cli = setup();
    const noN = await cli('launch', 'web', '--count', '3');
    expect(noN.code).toBe(2);
    expect(noN.stderr).toMatch(/NAME: with a count above 1 the name needs \{n\}/);
    const many = await cli('launch', 'web-{n}', '--count', '500');
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(/--count: must be a whole number from 1 to 50 \(got 500\)/);
    expect((await cli('launch', 'web-{n}', '--count', 'x')).code).toBe(2);
    const strategy = await cli('launch', 'web-{n}', '--count', '2', '--strategy', 'Everywhere!');
    expect(strategy.code).toBe(2);
    expect(strategy.stderr).toMatch(/--strategy: spread, pack, or a comma-separated list of host names/);
    const both = await cli('launch', 'web-{n}', '--count', '2', '--host', 'local');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--host and --count\/--strategy: name the hosts with --strategy HOST,HOST instead/);
    // A host that cannot be reached: the whole request is refused up front, naming why.
    const down = await cli('launch', 'web-{n}', '--count', '2');
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /cannot place 2 proxies: room for 0 of 2 proxies on the hosts that answer \(local: not reachable/,
    );
  });

  it('refuses bad labels, a bad --ttl, a bad selector and NAME with -l before touching any host', async () => {
    const cli = setup();
    const cases: Array<[string[], RegExp]> = [
      [['launch', 'ok', '--label', 'Env=prod'], /--label: "Env=prod": a label key must be/],
      [['launch', 'ok', '--label', 'env=a b'], /--label: "env=a b": a label value must be/],
      [['launch', 'ok', '--ttl', 'tomorrow'], /--ttl: time to live "tomorrow": a duration/],
      [['label', 'ok'], /give key=value pairs to set, or --remove KEY/],
      [['label', 'ok', 'env'], /"env": a label is key=value/],
      [['label', 'ok', '--remove', 'A B'], /--remove "A B": not a label key/],
      [['list', '-l', 'env'], /-l: "env": a label is key=value/],
      [['delete'], /give a proxy NAME, or -l key=value/],
      [['stop', 'ok', '-l', 'env=prod'], /NAME or -l key=value, not both/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/no-such-socket/);
    }
  });

  it('a host that cannot be reached: launch fails at "place" and list reports the host, without a stack trace', async () => {
    const cli = setup();
    const r = await cli('launch', 'ok');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /launch failed at step "place": no host can take the proxy: local: not reachable \(.*no-such-socket/,
    );
    const l = await cli('list', '--json');
    expect(l.code).toBe(1);
    expect(JSON.parse(l.stdout)).toMatchObject({ proxies: [], hosts: [{ host: 'local', ok: false }] });
    expect(r.stderr + l.stderr).not.toMatch(/^\s+at /m);
  });
});
