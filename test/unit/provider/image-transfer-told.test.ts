/**
 * The launch tells the app how a base image reached the host (onImageTransfer), so that
 * the Hosts view can say why it was not fetched there; only when it moved, and a failure
 * to keep it never fails the launch. The upload step says where the bytes come from.
 */
import { describe, expect, it } from 'vitest';
import type { ImageTransferDone } from '../../../electron/services/provider/kvm/context.js';
import { baseVolumeName } from '../../../electron/services/provider/kvm/names.js';
import { fixture } from './provider-fixture.js';

describe('launch: how the base image reached the host', () => {
  it('an upload that auto chose is told with its reason, once: a second launch finds the base and tells nothing', async () => {
    const told: Array<[string, ImageTransferDone]> = [];
    const f = fixture({ deps: { onImageTransfer: async (host, t) => void told.push([host, t]) } });
    const starts: Array<{ step: string; message?: string }> = [];
    await f.provider.launch(
      { name: 'one', host: 'edge-b' },
      {
        onStep: (e) =>
          e.phase === 'start' && starts.push({ step: e.step, ...(e.message ? { message: e.message } : {}) }),
      },
    );
    const reason = 'a file: URL names a file on this machine, not one the host can download';
    expect(told).toEqual([['edge-b', { mode: 'upload', reason, volume: baseVolumeName(f.image.sha256, 'qcow2') }]]);
    expect(starts.find((s) => s.step === 'upload')).toEqual({
      step: 'upload',
      message: `from this machine to edge-b (not fetched on the host: ${reason})`,
    });
    await f.provider.launch({ name: 'two', host: 'edge-b' });
    expect(told).toHaveLength(1);
  });

  it('upload chosen: told without a reason (nothing fell back)', async () => {
    const told: ImageTransferDone[] = [];
    const f = fixture({ deps: { onImageTransfer: async (_host, t) => void told.push(t) } });
    await f.provider.launch({ name: 'one', host: 'edge-b' }, { imageTransfer: 'upload' });
    expect(told).toEqual([{ mode: 'upload', volume: baseVolumeName(f.image.sha256, 'qcow2') }]);
  });

  it('a record that cannot be kept (a broken settings file) does not fail the launch', async () => {
    const f = fixture({ deps: { onImageTransfer: async () => Promise.reject(new Error('settings.json: not JSON')) } });
    const r = await f.provider.launch({ name: 'one', host: 'edge-b' });
    expect(r.created).toBe(true);
  });
});
