/**
 * Storage volume XML for a proxy: the qcow2 overlay on the shared base image, the raw
 * seed ISO, and the base image itself. Capacities are always `unit="bytes"`: libvirt's
 * `G` means GiB but `GB` means 10⁹, and spelling out bytes leaves no room for that mistake.
 */
import { create } from 'xmlbuilder2';
import { z } from 'zod';
import { hasControlCharacters } from '../../../../../shared/text.js';

/** One GiB, the unit of machine types' diskGiB. */
export const GIB = 1024 ** 3;

const volumeName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, 'must be letters, digits, ".", "_", "+" and "-"');
const bytes = z.int().min(1).max(Number.MAX_SAFE_INTEGER);
const format = z.enum(['qcow2', 'raw']);

export const OverlaySpecSchema = z.object({
  name: volumeName,
  capacityBytes: bytes,
  /** The base volume's path on the host: the only path a launch ever looks up. */
  backingPath: z
    .string()
    .startsWith('/')
    .refine((p) => !hasControlCharacters(p), 'must not contain control characters'),
  backingFormat: format,
});
export type OverlaySpec = z.infer<typeof OverlaySpecSchema>;

export function buildOverlayVolumeXml(input: OverlaySpec): string {
  const spec = OverlaySpecSchema.parse(input);
  const vol = create().ele('volume', { type: 'file' });
  vol.ele('name').txt(spec.name);
  vol.ele('capacity', { unit: 'bytes' }).txt(String(spec.capacityBytes));
  vol.ele('allocation', { unit: 'bytes' }).txt('0');
  vol.ele('target').ele('format', { type: 'qcow2' });
  const backing = vol.ele('backingStore');
  backing.ele('path').txt(spec.backingPath);
  backing.ele('format', { type: spec.backingFormat });
  return vol.end({ prettyPrint: true, headless: true, wellFormed: true });
}

export const PlainVolumeSpecSchema = z.object({ name: volumeName, capacityBytes: bytes, format });
export type PlainVolumeSpec = z.infer<typeof PlainVolumeSpecSchema>;

/** A volume whose bytes are uploaded as they are: the seed (raw) and the base image (its own format). */
export function buildPlainVolumeXml(input: PlainVolumeSpec): string {
  const spec = PlainVolumeSpecSchema.parse(input);
  const vol = create().ele('volume', { type: 'file' });
  vol.ele('name').txt(spec.name);
  vol.ele('capacity', { unit: 'bytes' }).txt(String(spec.capacityBytes));
  vol.ele('allocation', { unit: 'bytes' }).txt('0');
  vol.ele('target').ele('format', { type: spec.format });
  return vol.end({ prettyPrint: true, headless: true, wellFormed: true });
}

/** The seed volume: raw, exactly the ISO's size. */
export function buildSeedVolumeXml(name: string, isoBytes: number): string {
  return buildPlainVolumeXml({ name, capacityBytes: isoBytes, format: 'raw' });
}

/** The base volume: the image's own format, capacity = the image file's size. */
export function buildBaseVolumeXml(name: string, fileBytes: number, imageFormat: 'qcow2' | 'raw'): string {
  return buildPlainVolumeXml({ name, capacityBytes: fileBytes, format: imageFormat });
}
