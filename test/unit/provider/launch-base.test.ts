import { describe, expect, it } from 'vitest';
import { bakedVolumeName, proxyRecipe } from '../../../electron/services/provider/kvm/guest/bake-recipe.js';
import { buildPlainVolumeXml } from '../../../electron/services/provider/kvm/xml/volume-xml.js';
import { fixture } from './provider-fixture.js';

describe('the launch plan: which base', () => {
  it('uses the plain base and says the image is not baked yet; uses the baked one once it is on the host, with no upload', async () => {
    const f = fixture();
    const first = await f.provider.launch({ name: 'first', host: 'edge-a' });
    expect(first.base).toMatchObject({ baked: false });
    expect(first.base!.note).toMatch(/not baked on edge-a yet/);
    const baked = bakedVolumeName(f.image.sha256, proxyRecipe());
    await f.a.createVolume('default', buildPlainVolumeXml({ name: baked, capacityBytes: 1 << 20, format: 'qcow2' }));
    const second = await f.provider.launch({ name: 'second', host: 'edge-a' });
    expect(second.base).toEqual(expect.objectContaining({ volume: baked, baked: true }));
    const plain = await f.provider.launch({ name: 'third', host: 'edge-a' }, { plainBase: true });
    expect(plain.base).toMatchObject({ baked: false });
  });
});
