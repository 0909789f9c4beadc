import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BAKE_MARKER, bakeRecipe, bakedVolumeName, buildBakeUserData, proxyRecipe, parseBakedVolumeName, recipeHash } from '../../../electron/services/provider/kvm/bake-recipe.js';
import { isBaseVolume } from '../../../electron/services/provider/kvm/names.js';

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
    expect(recipeHash({ packages: ['tinyproxy', 'qemu-guest-agent'] })).toBe(recipeHash({ packages: ['qemu-guest-agent', 'tinyproxy'] }));
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
    // tinyproxy's drop-in: after cloud-init's network stage (write_files), a valid unit fragment.
    const dropIn = (doc.write_files as Array<{ path: string; content: string }>).find((f) => f.path.startsWith('/etc/systemd/system/tinyproxy.service.d/'));
    expect(dropIn?.content).toMatch(/^\[Unit\]\nAfter=cloud-init\.service\n/m);
  });
});
