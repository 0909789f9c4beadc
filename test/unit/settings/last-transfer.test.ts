/** What the last transfer to a host did, kept in settings.json beside its choice. */
import { describe, expect, it } from 'vitest';
import {
  AppSettingsSchema,
  describeLastTransfer,
  imageTransferOf,
  withImageTransfer,
  withLastTransfer,
} from '../../../shared/app-settings.js';

const at = '2026-12-03T10:00:00.000Z';
const volume = `egress-base-${'a'.repeat(64)}.qcow2`;

describe('the last transfer in the settings', () => {
  it('is kept beside the choice; setting the choice keeps it, recording it keeps the choice', () => {
    const chosen = withImageTransfer(AppSettingsSchema.parse({}), 'edge-a', 'fetch');
    const recorded = AppSettingsSchema.parse(
      withLastTransfer(chosen, 'edge-a', { mode: 'upload', reason: 'the host has neither curl nor wget', volume, at }),
    );
    expect(imageTransferOf(recorded, 'edge-a')).toBe('fetch');
    expect(recorded.hosts['edge-a']!.lastTransfer).toEqual({
      mode: 'upload',
      reason: 'the host has neither curl nor wget',
      volume,
      at,
    });
    const changed = AppSettingsSchema.parse(withImageTransfer(recorded, 'edge-a', 'upload'));
    expect(changed.hosts['edge-a']).toEqual({
      imageTransfer: 'upload',
      lastTransfer: recorded.hosts['edge-a']!.lastTransfer,
    });
    // A host with no choice yet is auto, written out.
    expect(
      AppSettingsSchema.parse(withLastTransfer(AppSettingsSchema.parse({}), 'edge-b', { mode: 'fetch', volume, at }))
        .hosts['edge-b'],
    ).toEqual({ imageTransfer: 'auto', lastTransfer: { mode: 'fetch', volume, at } });
  });

  it('refuses a record that is not one (unknown mode, no instant, an unknown field)', () => {
    expect(
      AppSettingsSchema.safeParse({ hosts: { a: { lastTransfer: { mode: 'carried', volume, at } } } }).success,
    ).toBe(false);
    expect(
      AppSettingsSchema.safeParse({ hosts: { a: { lastTransfer: { mode: 'fetch', volume, at: 'yesterday' } } } })
        .success,
    ).toBe(false);
    expect(
      AppSettingsSchema.safeParse({ hosts: { a: { lastTransfer: { mode: 'fetch', volume, at, bytes: 1 } } } }).success,
    ).toBe(false);
  });

  it('reads as one line for a person', () => {
    expect(describeLastTransfer({ mode: 'fetch', volume, at })).toBe(`${volume} fetched by the host itself, ${at}`);
    expect(describeLastTransfer({ mode: 'upload', reason: 'the host has neither curl nor wget', volume, at })).toBe(
      `${volume} uploaded from this machine (not fetched on the host: the host has neither curl nor wget), ${at}`,
    );
    expect(describeLastTransfer({ mode: 'upload', volume, at })).toBe(`${volume} uploaded from this machine, ${at}`);
  });
});
