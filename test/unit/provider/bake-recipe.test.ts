import { execFile, execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  BAKE_MARKER,
  TINYPROXY_DROP_IN,
  bakeRecipe,
  bakedVolumeName,
  buildBakeUserData,
  proxyRecipe,
  parseBakedVolumeName,
  recipeHash,
} from '../../../electron/services/provider/kvm/guest/bake-recipe.js';
import { isBaseVolume } from '../../../electron/services/provider/kvm/names.js';
import {
  TINYPROXY_CONF_END,
  buildTinyproxyConf,
} from '../../../electron/services/provider/kvm/guest/tinyproxy-conf.js';
import { tempDir } from '../../support/temp-dir.js';

const SHA = 'a'.repeat(64);

describe('bake recipe', () => {
  it('always holds the guest agent, sorted and unique', () => {
    expect(bakeRecipe(['tinyproxy', 'qemu-guest-agent']).packages).toEqual(['qemu-guest-agent', 'tinyproxy']);
    expect(proxyRecipe().packages).toEqual(['dante-server', 'qemu-guest-agent', 'tinyproxy']);
  });

  it('hashes the package list: another package is another hash, order does not matter', () => {
    const http = recipeHash(bakeRecipe(['tinyproxy']));
    expect(http).toMatch(/^[0-9a-f]{12}$/);
    expect(recipeHash(bakeRecipe(['tinyproxy']))).toBe(http);
    expect(recipeHash({ packages: ['tinyproxy', 'qemu-guest-agent'] })).toBe(
      recipeHash({ packages: ['qemu-guest-agent', 'tinyproxy'] }),
    );
    expect(recipeHash(bakeRecipe(['dante-server']))).not.toBe(http);
    expect(recipeHash(bakeRecipe(['tinyproxy', 'dante-server']))).not.toBe(http);
  });

  it('refuses a package name that is not a Debian one', () => {
    expect(() => bakeRecipe(['tiny proxy; rm -rf /'])).toThrow(/not a Debian package name/);
  });

  it('names the baked volume by digest and recipe, and prune counts it as a base', () => {
    const recipe = proxyRecipe();
    const name = bakedVolumeName(SHA, recipe);
    expect(name).toBe(`egress-baked-${SHA}-${recipeHash(recipe)}.qcow2`);
    expect(parseBakedVolumeName(name)).toEqual({ sha256: SHA, recipeHash: recipeHash(recipe) });
    expect(isBaseVolume(name)).toBe(true);
    expect(isBaseVolume(`egress-base-${SHA}.qcow2`)).toBe(true);
    expect(isBaseVolume('egress-baking-aaaa-root.qcow2')).toBe(false);
    expect(() => bakedVolumeName('XYZ', recipe)).toThrow(/64 lowercase hex/);
  });

  it('bakes with a seed that installs the packages and a finishing script that is valid sh and never contains the marker', () => {
    const recipe = proxyRecipe();
    const text = buildBakeUserData(recipe);
    const doc = parse(text) as { packages: string[]; write_files: Array<{ content: string }>; runcmd: string[][] };
    expect(doc.packages).toEqual(recipe.packages);
    const script = doc.write_files[0]!.content;
    expect(script).toContain('cloud-init clean --logs');
    expect(script).toContain('poweroff');
    execFileSync('sh', ['-n', '-c', script]);
    expect(BAKE_MARKER.test(text)).toBe(false);
    expect(doc.runcmd[0]![0]).toBe('systemd-run');
    // tinyproxy's drop-in is written by the finishing script (after the packages), not by
    // write_files: while baking, the package's own start must not wait for our config.
    expect(doc.write_files).toHaveLength(1);
    expect(script).toContain('systemctl disable danted.service');
    expect(script).toContain(
      `cat > ${TINYPROXY_DROP_IN.path} <<'EGRESS_EOF'\n${TINYPROXY_DROP_IN.content}EGRESS_EOF\n`,
    );
  });

  it("tinyproxy's drop-in waits for the last line of our tinyproxy.conf, and no longer than it says", async () => {
    const pre = /^ExecStartPre=\/bin\/sh -c '(.*)'$/m.exec(TINYPROXY_DROP_IN.content)?.[1];
    expect(pre).toBeDefined();
    expect(TINYPROXY_DROP_IN.content).toMatch(/^\[Service\]$/m);
    // Out of sysinit.target's ordering (cloud-init.service is Before=sysinit.target on Debian).
    expect(TINYPROXY_DROP_IN.content).toMatch(/^\[Unit\]\nDefaultDependencies=no\n/m);
    expect(TINYPROXY_DROP_IN.content).toMatch(/^Conflicts=shutdown\.target$/m);
    // systemd turns `$$` into `$`; the shell then sees this (and our config really ends so).
    const dir = tempDir('egress-dropin-');
    const conf = join(dir, 'tinyproxy.conf');
    const shell = pre!.replaceAll('$$', '$').replace('/etc/tinyproxy/tinyproxy.conf', conf);
    const ours = buildTinyproxyConf({ port: 3128, allow: ['10.0.0.0/8'] });
    expect(ours.trimEnd().split('\n').at(-1)).toBe(TINYPROXY_CONF_END);
    try {
      writeFileSync(conf, 'Port 8888\n'); // Debian's default file: wait
      const started = Date.now();
      const done = new Promise<number>((resolve) => execFile('sh', ['-c', shell], () => resolve(Date.now() - started)));
      await new Promise((r) => setTimeout(r, 600));
      writeFileSync(conf, ours.slice(0, 40)); // half-written: still waiting
      await new Promise((r) => setTimeout(r, 600));
      writeFileSync(conf, ours);
      const waited = await done;
      expect(waited).toBeGreaterThanOrEqual(1100);
      expect(waited).toBeLessThan(5000);
      // Complete already (a reboot): no wait at all.
      const again = Date.now();
      execFileSync('sh', ['-c', shell]);
      expect(Date.now() - again).toBeLessThan(1000);
      // Bounded: 600 rounds of 0.2 s, then tinyproxy starts with whatever is there.
      expect(shell).toContain('[ $n -ge 600 ] && break');
      expect(TINYPROXY_DROP_IN.content).toMatch(/^TimeoutStartSec=(\d+)$/m);
      expect(Number(/^TimeoutStartSec=(\d+)$/m.exec(TINYPROXY_DROP_IN.content)![1])).toBeGreaterThan(600 * 0.2 + 30);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
