/**
 * The NoCloud seed: a small ISO9660 image, volume label `cidata`, holding `user-data`,
 * `meta-data` and `vendor-data`, which cloud-init finds by its label and mounts.
 *
 * Why our own writer: we found no maintained ISO9660 writer on npm that is pure (bytes in,
 * bytes out), deterministic (identical input, identical bytes: a launch is a function of
 * its spec, and tests compare images) and free of temporary files and child processes.
 * What is there reads images (e.g. @zenfs/archives), stages files on disk, stamps the
 * current time, or runs genisoimage/xorriso, which a workstation may not have. A seed
 * needs a small subset: one root directory of regular files, no Rock Ridge, no Joliet, no
 * boot record.
 *
 * Layout (ECMA-119), in 2048-byte sectors:
 *
 *   0-15   system area, zeros
 *   16     primary volume descriptor (root directory record embedded)
 *   17     volume descriptor set terminator
 *   18     type L path table (little-endian)     19  type M path table (big-endian)
 *   20…    root directory: ".", "..", then one record per file in 9.3 order; a record
 *          never crosses a sector boundary, so a long directory spans several sectors
 *   …      file data, each file from a sector boundary, in directory order
 *   …      150 sectors of zeros (as mkisofs pads), so that CD-ROM read-ahead past the last
 *          file stays inside the volume
 *
 * File identifiers are `NAME;1` with NAME exactly as given (lowercase, '-' allowed): not
 * strict level 1 (d-characters, 8.3), but what Linux isofs, and so cloud-init, reads as
 * `NAME` (see linuxIsofsName in test/support/iso9660-reader.ts). Every date is the
 * `timestamp` option, in UTC.
 */
import { formatBytes } from '../../../../../shared/bytes.js';
import {
  compareFileIdentifiers,
  dirRecordLength,
  FLAG_DIRECTORY,
  longDate,
  MAX_YEAR,
  MIN_YEAR,
  putBoth16,
  putBoth32,
  putPadded,
  SECTOR_SIZE,
  shortDate,
  STANDARD_ID,
  SYSTEM_AREA_SECTORS,
  VD_PRIMARY,
  VD_TERMINATOR,
  writeDirRecord,
} from './iso9660.js';

/** One file of the seed. Text is written as UTF-8, without a byte order mark. */
export interface SeedFile {
  name: string;
  data: Uint8Array | string;
}

export interface SeedIsoOptions {
  /** The volume label: 1-32 of A-Z, a-z, 0-9, '_' and '-'. Default `cidata`, which cloud-init looks for. */
  volumeId?: string;
  /** Every date in the image. Default {@link DEFAULT_SEED_TIMESTAMP}, so that output depends on the files alone. */
  timestamp?: Date;
}

/** The label cloud-init's NoCloud looks for (it accepts `cidata` and `CIDATA`). */
export const NOCLOUD_VOLUME_ID = 'cidata';
export const DEFAULT_SEED_TIMESTAMP = new Date('2000-01-01T00:00:00Z');
/** Largest single file, and largest sum of all files. A seed is a few KiB of YAML; these catch mistakes. */
export const MAX_SEED_FILE_BYTES = 8 * 1024 * 1024;
export const MAX_SEED_TOTAL_BYTES = 16 * 1024 * 1024;
export const MAX_SEED_FILES = 256;
/** Zero sectors after the data (mkisofs's default -pad). */
export const TRAILING_PAD_SECTORS = 150;
const NAME_MAX = 30;
const NAME_CHARS = /^[a-z0-9_.-]+$/;
const VOLUME_ID = /^[A-Za-z0-9_-]{1,32}$/;
const APPLICATION_ID = 'EGRESS DESK NOCLOUD SEED';

const PVD_SECTOR = SYSTEM_AREA_SECTORS;
const TERMINATOR_SECTOR = PVD_SECTOR + 1;
const L_PATH_TABLE_SECTOR = PVD_SECTOR + 2;
const M_PATH_TABLE_SECTOR = PVD_SECTOR + 3;
const ROOT_SECTOR = PVD_SECTOR + 4;
/** The path table holds the root alone: 8 bytes, a 1-byte identifier, 1 byte of padding (9.4). */
const PATH_TABLE_SIZE = 10;

/** The files or options cannot make a seed: says which file or option, and why. */
export class SeedIsoError extends Error {
  override readonly name = 'SeedIsoError';
}

/** The exact count, and the same for people: `8388609 bytes (8.0 MiB)`. */
function bytesAndSize(n: number): string {
  return n < 1024 ? `${n} bytes` : `${n} bytes (${formatBytes(n)})`;
}

function quoted(name: string): string {
  return JSON.stringify(name.length > 40 ? `${name.slice(0, 37)}...` : name);
}

/** Checks a seed file name; returns it. Rules: 1-30 of a-z, 0-9, '-', '_', '.'; not "." or ".."; not ending in '.'. */
export function checkSeedFileName(name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw new SeedIsoError('seed file name must not be empty');
  const rule = `a seed file name is 1-${NAME_MAX} characters of a-z, 0-9, "-", "_" and "."`;
  if (name.length > NAME_MAX)
    throw new SeedIsoError(`seed file name ${quoted(name)} is ${name.length} characters long: ${rule}`);
  if (!NAME_CHARS.test(name))
    throw new SeedIsoError(`seed file name ${quoted(name)} is invalid: ${rule} (no "/", no uppercase)`);
  // Linux isofs drops a trailing '.' (it reads "NAME.;1" as NAME), so such a name would not survive.
  if (name === '.' || name === '..' || name.endsWith('.')) {
    throw new SeedIsoError(`seed file name ${quoted(name)} is invalid: it must not end with "."`);
  }
  return name;
}

interface PreparedFile {
  name: string;
  identifier: Buffer;
  data: Uint8Array;
  extent: number;
}

function prepareFiles(files: readonly SeedFile[]): PreparedFile[] {
  if (!Array.isArray(files)) throw new SeedIsoError('seed files must be an array of { name, data }');
  if (files.length > MAX_SEED_FILES)
    throw new SeedIsoError(`a seed holds at most ${MAX_SEED_FILES} files, got ${files.length}`);
  const seen = new Set<string>();
  let total = 0;
  const prepared: PreparedFile[] = [];
  for (const file of files) {
    const name = checkSeedFileName(file.name);
    if (seen.has(name)) throw new SeedIsoError(`seed file ${quoted(name)} is listed more than once`);
    seen.add(name);
    let data: Uint8Array;
    if (typeof file.data === 'string') data = Buffer.from(file.data, 'utf8');
    else if (file.data instanceof Uint8Array) data = file.data;
    else throw new SeedIsoError(`seed file ${quoted(name)}: data must be a string or a Uint8Array`);
    if (data.length > MAX_SEED_FILE_BYTES) {
      throw new SeedIsoError(
        `seed file ${quoted(name)} is ${bytesAndSize(data.length)}; a seed file may be at most ${bytesAndSize(MAX_SEED_FILE_BYTES)}`,
      );
    }
    total += data.length;
    if (total > MAX_SEED_TOTAL_BYTES) {
      throw new SeedIsoError(
        `seed files total more than ${bytesAndSize(MAX_SEED_TOTAL_BYTES)} (reached ${bytesAndSize(total)} with ${quoted(name)}, ${bytesAndSize(data.length)})`,
      );
    }
    prepared.push({ name, identifier: Buffer.from(`${name};1`, 'latin1'), data, extent: 0 });
  }
  return prepared.sort((a, b) =>
    compareFileIdentifiers(a.identifier.toString('latin1'), b.identifier.toString('latin1')),
  );
}

function checkOptions(options: SeedIsoOptions): { volumeId: string; timestamp: Date } {
  const volumeId = options.volumeId ?? NOCLOUD_VOLUME_ID;
  if (typeof volumeId !== 'string' || !VOLUME_ID.test(volumeId)) {
    throw new SeedIsoError(
      `volume id ${JSON.stringify(volumeId)} is invalid: 1-32 characters of A-Z, a-z, 0-9, "_" and "-"`,
    );
  }
  const timestamp = options.timestamp ?? DEFAULT_SEED_TIMESTAMP;
  if (!(timestamp instanceof Date) || Number.isNaN(timestamp.getTime()))
    throw new SeedIsoError('timestamp must be a valid Date');
  const year = timestamp.getUTCFullYear();
  if (year < MIN_YEAR || year > MAX_YEAR) {
    throw new SeedIsoError(
      `timestamp ${timestamp.toISOString()} cannot be recorded: ISO9660 dates cover the years ${MIN_YEAR}-${MAX_YEAR}`,
    );
  }
  return { volumeId, timestamp };
}

const sectorsFor = (bytes: number) => Math.ceil(bytes / SECTOR_SIZE);

/** Where each directory record goes inside the directory extent, none crossing a sector boundary. */
function layoutDirectory(recordLengths: readonly number[]): { offsets: number[]; size: number } {
  const offsets: number[] = [];
  let at = 0;
  for (const length of recordLengths) {
    if ((at % SECTOR_SIZE) + length > SECTOR_SIZE) at = sectorsFor(at) * SECTOR_SIZE;
    offsets.push(at);
    at += length;
  }
  return { offsets, size: sectorsFor(at) * SECTOR_SIZE };
}

function writeVolumeDescriptorHeader(iso: Buffer, sector: number, type: number): number {
  const at = sector * SECTOR_SIZE;
  iso[at] = type;
  iso.write(STANDARD_ID, at + 1, 'latin1');
  iso[at + 6] = 1; // version
  return at;
}

function writePrimaryVolumeDescriptor(
  iso: Buffer,
  volumeId: string,
  volumeSectors: number,
  rootSize: number,
  timestamp: Date,
): void {
  const at = writeVolumeDescriptorHeader(iso, PVD_SECTOR, VD_PRIMARY);
  putPadded(iso, at + 8, 32, ''); // system identifier
  putPadded(iso, at + 40, 32, volumeId);
  putBoth32(iso, at + 80, volumeSectors);
  putBoth16(iso, at + 120, 1); // volume set size
  putBoth16(iso, at + 124, 1); // volume sequence number
  putBoth16(iso, at + 128, SECTOR_SIZE); // logical block size
  putBoth32(iso, at + 132, PATH_TABLE_SIZE);
  iso.writeUInt32LE(L_PATH_TABLE_SECTOR, at + 140); // optional L table at +144 stays 0: none
  iso.writeUInt32BE(M_PATH_TABLE_SECTOR, at + 148); // optional M table at +152 stays 0: none
  writeDirRecord(
    iso,
    at + 156,
    { extent: ROOT_SECTOR, dataLength: rootSize, flags: FLAG_DIRECTORY, identifier: Buffer.from([0]) },
    shortDate(timestamp),
  );
  putPadded(iso, at + 190, 128, ''); // volume set identifier
  putPadded(iso, at + 318, 128, ''); // publisher
  putPadded(iso, at + 446, 128, ''); // data preparer
  putPadded(iso, at + 574, 128, APPLICATION_ID);
  putPadded(iso, at + 702, 37, ''); // copyright file
  putPadded(iso, at + 739, 37, ''); // abstract file
  putPadded(iso, at + 776, 37, ''); // bibliographic file
  longDate(timestamp).copy(iso, at + 813); // creation
  longDate(timestamp).copy(iso, at + 830); // modification
  longDate(undefined).copy(iso, at + 847); // expiration: none
  longDate(undefined).copy(iso, at + 864); // effective: now
  iso[at + 881] = 1; // file structure version
}

function writePathTables(iso: Buffer): void {
  for (const [sector, littleEndian] of [
    [L_PATH_TABLE_SECTOR, true],
    [M_PATH_TABLE_SECTOR, false],
  ] as const) {
    const at = sector * SECTOR_SIZE;
    iso[at] = 1; // length of directory identifier
    iso[at + 1] = 0; // extended attribute record length
    if (littleEndian) {
      iso.writeUInt32LE(ROOT_SECTOR, at + 2);
      iso.writeUInt16LE(1, at + 6); // parent directory number: the root is its own parent
    } else {
      iso.writeUInt32BE(ROOT_SECTOR, at + 2);
      iso.writeUInt16BE(1, at + 6);
    }
    iso[at + 8] = 0; // the root's identifier, then one byte of padding
  }
}

/**
 * Builds an ISO9660 image holding `files` in its root directory. Pure and deterministic:
 * the same files and options give the same bytes. Throws {@link SeedIsoError} for an
 * invalid or duplicate name, a file or total over the limits, or a bad option.
 */
export function buildSeedIso(files: readonly SeedFile[], options: SeedIsoOptions = {}): Buffer {
  const { volumeId, timestamp } = checkOptions(options);
  const prepared = prepareFiles(files);

  const dot = Buffer.from([0]);
  const dotdot = Buffer.from([1]);
  const identifiers = [dot, dotdot, ...prepared.map((f) => f.identifier)];
  const directory = layoutDirectory(identifiers.map((id) => dirRecordLength(id.length)));

  let next = ROOT_SECTOR + directory.size / SECTOR_SIZE;
  for (const file of prepared) {
    // An empty file takes no sector; it points where its data would start, as mkisofs does.
    file.extent = next;
    next += sectorsFor(file.data.length);
  }
  const volumeSectors = next + TRAILING_PAD_SECTORS;
  const iso = Buffer.alloc(volumeSectors * SECTOR_SIZE);

  writePrimaryVolumeDescriptor(iso, volumeId, volumeSectors, directory.size, timestamp);
  writeVolumeDescriptorHeader(iso, TERMINATOR_SECTOR, VD_TERMINATOR);
  writePathTables(iso);

  const recorded = shortDate(timestamp);
  const rootAt = ROOT_SECTOR * SECTOR_SIZE;
  const self = { extent: ROOT_SECTOR, dataLength: directory.size, flags: FLAG_DIRECTORY };
  writeDirRecord(iso, rootAt + directory.offsets[0]!, { ...self, identifier: dot }, recorded);
  writeDirRecord(iso, rootAt + directory.offsets[1]!, { ...self, identifier: dotdot }, recorded);
  prepared.forEach((file, i) => {
    writeDirRecord(
      iso,
      rootAt + directory.offsets[i + 2]!,
      { extent: file.extent, dataLength: file.data.length, flags: 0, identifier: file.identifier },
      recorded,
    );
    iso.set(file.data, file.extent * SECTOR_SIZE);
  });
  return iso;
}

/** The NoCloud files by role. cloud-init requires user-data and meta-data; the others are optional. */
export interface NoCloudSeed {
  userData: string | Uint8Array;
  metaData: string | Uint8Array;
  vendorData?: string | Uint8Array;
  networkConfig?: string | Uint8Array;
}

/** Builds the NoCloud seed: `user-data`, `meta-data` and, when given, `vendor-data` and `network-config`, labelled `cidata`. */
export function buildNoCloudSeed(seed: NoCloudSeed, options: Omit<SeedIsoOptions, 'volumeId'> = {}): Buffer {
  const files: SeedFile[] = [
    { name: 'user-data', data: seed.userData },
    { name: 'meta-data', data: seed.metaData },
  ];
  if (seed.vendorData !== undefined) files.push({ name: 'vendor-data', data: seed.vendorData });
  if (seed.networkConfig !== undefined) files.push({ name: 'network-config', data: seed.networkConfig });
  return buildSeedIso(files, { ...options, volumeId: NOCLOUD_VOLUME_ID });
}
