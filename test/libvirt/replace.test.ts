/**
 * `proxies replace` on the real daemon (issue 16), on the tiny base (an empty disk: the
 * domain runs but never answers). The replacement is defined and booted under the name's
 * second domain name beside the running old one (libvirt refuses two domains of one name,
 * and cannot rename a running one), is not ready in time, and goes: the old one is left
 * exactly as it was (same running domain, same runtime id, same volumes, same credentials)
 * and nothing of the new one stays. The full success path needs a guest that answers: the
 * unit lane proves it over in-memory hosts (test/unit/provider/replace.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LibvirtClient, findDomainByName } from '../../electron/libvirt/index.js';
import { alternateInstanceId, baseVolumeName, instanceId } from '../../electron/services/provider/kvm/names.js';
import { removeProxy, systemClient } from '../support/libvirt.js';
import { type ProviderHome, hypervisorState, tinyProviderHome } from '../support/provider.js';
import { testEnv } from '../support/env.js';

const env = testEnv();
const NAME = 'egtest-replace';
/** A second proxy with the same label, for the run by label. */
const NAME2 = 'egtest-replace2';
let client: LibvirtClient;
let sha256: string;
let home: ProviderHome;

beforeAll(async () => {
  ({ sha256, ...home } = tinyProviderHome(env, 'egress-replace-'));
  client = await systemClient();
  await removeProxy(client, NAME);
  await removeProxy(client, NAME2);
});

afterAll(async () => {
  if (!client) return;
  await removeProxy(client, NAME2);
  await removeProxy(client, NAME, [baseVolumeName(sha256, 'qcow2')]);
  await client.close();
});

describe('proxies replace on a real daemon', () => {
  it('a replacement that is not ready in time is removed; the old one runs on untouched, with its credentials', async () => {
    const cli = home.proxies;
    const launched = await cli('launch', NAME, '--label', 'env=replace', '--json');
    expect(launched.code, launched.stderr).toBe(0);
    const second = await cli('launch', NAME2, '--label', 'env=replace', '--json');
    expect(second.code, second.stderr).toBe(0);
    const before = await hypervisorState(client);
    const runtime = (await findDomainByName(client, instanceId(NAME)))!.id;
    const credentials = readFileSync(join(home.home, 'data', 'credentials.json'), 'utf8');

    // Watch for the second domain while the replace runs: it must really have existed beside the old one.
    let sawBoth = false;
    const watching = (async () => {
      for (let i = 0; i < 400 && !sawBoth; i++) {
        if (await findDomainByName(client, alternateInstanceId(NAME)))
          sawBoth = (await findDomainByName(client, instanceId(NAME))) !== null;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const r = await cli('replace', NAME, '--timeout', '8');
    await watching;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/was not ready in time.*it was removed/);
    expect(sawBoth).toBe(true);
    expect(await hypervisorState(client)).toEqual(before);
    expect((await findDomainByName(client, instanceId(NAME)))!.id).toBe(runtime);
    expect(readFileSync(join(home.home, 'data', 'credentials.json'), 'utf8')).toBe(credentials);

    // By label, one at a time: two match; the first one's replacement fails, which stops the
    // run, so the second is never attempted (no replacement of it ever exists) and both old ones run on.
    const alternates = new Set<string>();
    let bothAtOnce = false;
    let stop = false;
    const watchingBulk = (async () => {
      while (!stop) {
        const seen = [];
        for (const n of [NAME, NAME2]) if (await findDomainByName(client, alternateInstanceId(n))) seen.push(n);
        for (const n of seen) alternates.add(n);
        if (seen.length > 1) bothAtOnce = true;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const bulk = await cli('replace', '-l', 'env=replace', '--timeout', '5');
    stop = true;
    await watchingBulk;
    expect(bulk.code).not.toBe(0);
    const [first, rest] =
      /proxy (egtest-replace2?): not replaced, it is as it was: [\s\S]*?\nnot attempted: (\S+)\n/
        .exec(bulk.stderr)
        ?.slice(1) ?? [];
    expect([first, rest].sort(), bulk.stderr).toEqual([NAME, NAME2]);
    expect(bothAtOnce).toBe(false);
    expect([...alternates]).toEqual([first]);
    expect(await hypervisorState(client)).toEqual(before);

    const usage = await cli('replace');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/give a proxy NAME, or -l key=value/);
  });
});
