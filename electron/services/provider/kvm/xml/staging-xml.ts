/**
 * The XML of fetch-on-host (host-fetch.ts): the transient staging pool over a directory the
 * SSH user made, the empty volume in it that the host's curl fills, and the base volume
 * libvirt copies it into. Pure builders, like volume-xml.ts.
 *
 * Both volumes are declared **raw** on purpose: libvirt copies raw to raw byte for byte, but
 * hands anything else to `qemu-img convert`, which rewrites (and decompresses) a qcow2 file,
 * so the base would no longer be the bytes whose SHA-256 was checked. The target pool's
 * refresh afterwards reads the copied file's header, as after an upload, and reports its
 * real format and virtual size.
 */
import { create } from 'xmlbuilder2';
import { z } from 'zod';
import { hasControlCharacters } from '../../../../../shared/text.js';

const name = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, 'must be letters, digits, ".", "_", "+" and "-"');
const absolutePath = z
  .string()
  .startsWith('/')
  .refine((p) => !hasControlCharacters(p), 'must not contain control characters');
const id = z
  .int()
  .min(0)
  .max(2 ** 32 - 1);

/** A transient dir pool over `path`. */
export function buildStagingPoolXml(poolName: string, path: string): string {
  const pool = create().ele('pool', { type: 'dir' });
  pool.ele('name').txt(name.parse(poolName));
  pool.ele('target').ele('path').txt(absolutePath.parse(path));
  return pool.end({ prettyPrint: true, headless: true, wellFormed: true });
}

/**
 * The empty file libvirt creates in the staging pool for the SSH user (`uid`/`gid`, mode
 * 0600) to download into. Created before the download so that libvirt knows it as raw: a
 * pool that found the file afterwards would probe it as qcow2.
 */
export function buildStagedVolumeXml(volumeName: string, uid: number, gid: number): string {
  const vol = create().ele('volume', { type: 'file' });
  vol.ele('name').txt(name.parse(volumeName));
  vol.ele('capacity', { unit: 'bytes' }).txt('0');
  const target = vol.ele('target');
  target.ele('format', { type: 'raw' });
  const perms = target.ele('permissions');
  perms.ele('owner').txt(String(id.parse(uid)));
  perms.ele('group').txt(String(id.parse(gid)));
  perms.ele('mode').txt('0600');
  return vol.end({ prettyPrint: true, headless: true, wellFormed: true });
}

/**
 * The base volume as a copy of the staged file: raw (see above), and allocation = capacity =
 * the file's size, which makes libvirt preallocate it whole. Without that it skips zero
 * blocks, and a sparse base would fail the completeness check every process makes
 * (base-image.ts isComplete: every whole block of the image written).
 */
export function buildFetchedBaseXml(volumeName: string, fileBytes: number): string {
  const bytes = z.int().min(1).max(Number.MAX_SAFE_INTEGER).parse(fileBytes);
  const vol = create().ele('volume', { type: 'file' });
  vol.ele('name').txt(name.parse(volumeName));
  vol.ele('capacity', { unit: 'bytes' }).txt(String(bytes));
  vol.ele('allocation', { unit: 'bytes' }).txt(String(bytes));
  vol.ele('target').ele('format', { type: 'raw' });
  return vol.end({ prettyPrint: true, headless: true, wellFormed: true });
}
