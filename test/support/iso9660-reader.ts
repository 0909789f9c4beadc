/**
 * A small ISO9660 reader for seeds: the primary volume descriptor and the root directory's
 * regular files, named as Linux isofs presents them without Rock Ridge (`user-data;1` →
 * `user-data`). The tests check the writer (electron/services/provider/kvm/guest/seed-iso.ts) with
 * it; the app never reads a seed. It
 * checks structure as it goes (both-endian fields agree, records stay inside their sector,
 * extents inside the volume) and throws {@link IsoFormatError} saying what is wrong; it
 * never returns a partial result. Subdirectories and multi-extent files are refused: a
 * seed has neither.
 */
import {
  DIR_RECORD_FIXED,
  type DirRecord,
  FLAG_DIRECTORY,
  SECTOR_SIZE,
  STANDARD_ID,
  SYSTEM_AREA_SECTORS,
  VD_PRIMARY,
  VD_TERMINATOR,
} from '../../electron/services/provider/kvm/guest/iso9660.js';

/** Directory record flag bit (9.1.6): the file continues in the next record. */
const FLAG_MULTI_EXTENT = 0x80;

/** An ISO9660 image that the reader cannot accept: says what is wrong and where. */
export class IsoFormatError extends Error {
  override readonly name = 'IsoFormatError';
}

function checkedRange(buf: Uint8Array, offset: number, length: number, field: string): void {
  if (offset < 0 || offset + length > buf.length) {
    throw new IsoFormatError(
      `${field}: bytes ${offset}-${offset + length - 1} lie outside the image (${buf.length} bytes)`,
    );
  }
}

/** Reads a both-endian 16-bit number; the two halves must agree. */
function readBoth16(buf: Buffer, offset: number, field: string): number {
  checkedRange(buf, offset, 4, field);
  const le = buf.readUInt16LE(offset);
  const be = buf.readUInt16BE(offset + 2);
  if (le !== be) throw new IsoFormatError(`${field}: little-endian value ${le} and big-endian value ${be} disagree`);
  return le;
}

/** Reads a both-endian 32-bit number; the two halves must agree. */
function readBoth32(buf: Buffer, offset: number, field: string): number {
  checkedRange(buf, offset, 8, field);
  const le = buf.readUInt32LE(offset);
  const be = buf.readUInt32BE(offset + 4);
  if (le !== be) throw new IsoFormatError(`${field}: little-endian value ${le} and big-endian value ${be} disagree`);
  return le;
}

/** Reads a fixed-width text field, without its padding (spaces, and NULs some writers use). */
function readPadded(buf: Buffer, offset: number, width: number, field: string): string {
  checkedRange(buf, offset, width, field);
  return buf.toString('latin1', offset, offset + width).replace(/[ \0]+$/, '');
}

/** Parses the directory record at `offset`; `where` names it in errors. */
function readDirRecord(buf: Buffer, offset: number, where: string): DirRecord & { length: number } {
  checkedRange(buf, offset, DIR_RECORD_FIXED + 1, where);
  const length = buf[offset]!;
  const idLength = buf[offset + 32]!;
  if (length < DIR_RECORD_FIXED + 1 || DIR_RECORD_FIXED + idLength > length) {
    throw new IsoFormatError(`${where}: record length ${length} cannot hold a ${idLength}-byte identifier`);
  }
  checkedRange(buf, offset, length, where);
  return {
    length,
    extent: readBoth32(buf, offset + 2, `${where} extent location`),
    dataLength: readBoth32(buf, offset + 10, `${where} data length`),
    flags: buf[offset + 25]!,
    identifier: Buffer.from(buf.subarray(offset + 33, offset + 33 + idLength)),
  };
}

/**
 * The name Linux isofs presents for a file identifier when there is no Rock Ridge or
 * Joliet (mount option map=normal, the default): ASCII letters lowercased, a trailing
 * ";1" or ".;1" dropped, any other ';' shown as '.'. cloud-init's NoCloud sees the same.
 */
function linuxIsofsName(identifier: string): string {
  let out = '';
  for (let i = 0; i < identifier.length; i++) {
    let c = identifier[i]!;
    if (c === '\0') break;
    if (c >= 'A' && c <= 'Z') c = c.toLowerCase();
    if (c === '.' && i === identifier.length - 3 && identifier.endsWith(';1')) break;
    if (c === ';' && i === identifier.length - 2 && identifier.endsWith('1')) break;
    if (c === ';' || c === '/') c = '.';
    out += c;
  }
  return out;
}

export interface SeedIsoContents {
  /** The volume identifier, without its padding: the label blkid reports. */
  volumeId: string;
  /** The root directory's files by the name Linux presents, in directory order. */
  files: Map<string, Buffer>;
}

/** Volume descriptors are few; a run this long without a terminator is not an ISO. */
const MAX_VOLUME_DESCRIPTORS = 64;
/** A seed's root directory spans a few sectors; bound the walk on hostile input. */
const MAX_DIRECTORY_BYTES = 1024 * SECTOR_SIZE;

/** Walks the volume descriptor set from sector 16: returns the first primary descriptor's offset and the terminator's sector. */
function findDescriptors(iso: Buffer): { primary: number; terminator: number } {
  let primary: number | undefined;
  for (let i = 0; i < MAX_VOLUME_DESCRIPTORS; i++) {
    const sector = SYSTEM_AREA_SECTORS + i;
    const at = sector * SECTOR_SIZE;
    if (at + SECTOR_SIZE > iso.length) break;
    const id = iso.toString('latin1', at + 1, at + 6);
    if (id !== STANDARD_ID) {
      const shown = JSON.stringify(id.replace(/[^\x20-\x7e]/g, '.'));
      throw new IsoFormatError(
        `sector ${sector} is not an ISO9660 volume descriptor: standard identifier is ${shown}, expected "CD001"`,
      );
    }
    const type = iso[at]!;
    if (type === VD_TERMINATOR) {
      if (primary === undefined)
        throw new IsoFormatError('the volume descriptor set ends without a primary volume descriptor');
      return { primary, terminator: sector };
    }
    if (type === VD_PRIMARY && primary === undefined) {
      if (iso[at + 6] !== 1)
        throw new IsoFormatError(`primary volume descriptor version is ${iso[at + 6]}, expected 1`);
      primary = at;
    }
  }
  throw new IsoFormatError('no volume descriptor set terminator found after sector 16');
}

/**
 * Reads a seed image: its volume label and the files of its root directory.
 * Throws {@link IsoFormatError} when `bytes` is not a well-formed ISO9660 image of that shape.
 */
export function readSeedIso(bytes: Uint8Array): SeedIsoContents {
  if (!(bytes instanceof Uint8Array))
    throw new IsoFormatError('an ISO9660 image must be given as bytes (Uint8Array or Buffer)');
  const iso = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const minimum = (SYSTEM_AREA_SECTORS + 2) * SECTOR_SIZE;
  if (iso.length < minimum) {
    throw new IsoFormatError(
      `${iso.length} bytes is too short for an ISO9660 image: a system area, a primary volume descriptor and a terminator take ${minimum}`,
    );
  }
  if (iso.length % SECTOR_SIZE !== 0) {
    throw new IsoFormatError(`image size ${iso.length} is not a multiple of the ${SECTOR_SIZE}-byte sector`);
  }

  const { primary, terminator } = findDescriptors(iso);
  return readWithPrimary(iso, primary, terminator);
}

function readWithPrimary(iso: Buffer, pvd: number, terminator: number): SeedIsoContents {
  const sectors = readBoth32(iso, pvd + 80, 'volume space size');
  const blockSize = readBoth16(iso, pvd + 128, 'logical block size');
  if (blockSize !== SECTOR_SIZE)
    throw new IsoFormatError(`logical block size is ${blockSize}; only ${SECTOR_SIZE} is supported`);
  if (sectors * SECTOR_SIZE > iso.length) {
    throw new IsoFormatError(
      `image is truncated: the volume is ${sectors} sectors (${sectors * SECTOR_SIZE} bytes) but only ${iso.length} bytes are present`,
    );
  }
  if (terminator >= sectors)
    throw new IsoFormatError(
      `the volume descriptor set terminator (sector ${terminator}) lies outside the volume (${sectors} sectors)`,
    );
  if (iso[pvd + 881] !== 1) throw new IsoFormatError(`file structure version is ${iso[pvd + 881]}, expected 1`);
  const volumeId = readPadded(iso, pvd + 40, 32, 'volume identifier');

  const root = readDirRecord(iso, pvd + 156, 'root directory record');
  if (root.length !== 34 || root.identifier.length !== 1 || root.identifier[0] !== 0) {
    throw new IsoFormatError(
      `root directory record is malformed (length ${root.length}, identifier length ${root.identifier.length})`,
    );
  }
  if ((root.flags & FLAG_DIRECTORY) === 0)
    throw new IsoFormatError('root directory record is not flagged as a directory');
  checkExtent('root directory', root.extent, root.dataLength, sectors);
  if (root.dataLength === 0 || root.dataLength > MAX_DIRECTORY_BYTES) {
    throw new IsoFormatError(`root directory size ${root.dataLength} is out of range (1-${MAX_DIRECTORY_BYTES} bytes)`);
  }

  checkPathTables(iso, pvd, sectors, root.extent);

  const files = new Map<string, Buffer>();
  // Each file is copied out of the image. Records that share an extent would copy the same
  // bytes again and again (a 2 MiB directory of records all naming one large extent asks
  // for gigabytes), so the copies together may not exceed the volume: a seed's files never
  // overlap, so a real seed always fits.
  const budget = { left: sectors * SECTOR_SIZE };
  const start = root.extent * SECTOR_SIZE;
  let pos = 0;
  let index = 0;
  while (pos < root.dataLength) {
    const sectorEnd = Math.min((Math.floor(pos / SECTOR_SIZE) + 1) * SECTOR_SIZE, root.dataLength);
    const length = iso[start + pos]!;
    if (length === 0) {
      // Zero padding: the rest of this sector holds no record.
      pos = sectorEnd;
      continue;
    }
    const where = `root directory record ${index} (byte ${pos} of the directory)`;
    if (pos + length > sectorEnd) throw new IsoFormatError(`${where} is ${length} bytes and crosses a sector boundary`);
    const record = readDirRecord(iso, start + pos, where);
    readEntry(iso, record, index, where, sectors, root.extent, files, budget);
    pos += length;
    index++;
  }
  if (index < 2) throw new IsoFormatError('root directory lacks its "." and ".." records');
  return { volumeId, files };
}

/** The path tables (9.4): both present, inside the volume, their first entry the root directory. */
function checkPathTables(iso: Buffer, pvd: number, sectors: number, rootExtent: number): void {
  const size = readBoth32(iso, pvd + 132, 'path table size');
  if (size < 10 || size > MAX_DIRECTORY_BYTES)
    throw new IsoFormatError(`path table size ${size} is out of range (10-${MAX_DIRECTORY_BYTES} bytes)`);
  for (const [kind, sector, littleEndian] of [
    ['type L', iso.readUInt32LE(pvd + 140), true],
    ['type M', iso.readUInt32BE(pvd + 148), false],
  ] as const) {
    checkExtent(`${kind} path table`, sector, size, sectors);
    const at = sector * SECTOR_SIZE;
    const extent = littleEndian ? iso.readUInt32LE(at + 2) : iso.readUInt32BE(at + 2);
    const parent = littleEndian ? iso.readUInt16LE(at + 6) : iso.readUInt16BE(at + 6);
    if (iso[at] !== 1 || iso[at + 8] !== 0 || parent !== 1 || extent !== rootExtent) {
      throw new IsoFormatError(
        `${kind} path table (sector ${sector}) does not start with the root directory (sector ${rootExtent})`,
      );
    }
  }
}

function checkExtent(what: string, extent: number, dataLength: number, sectors: number): void {
  if (dataLength === 0) return;
  const end = extent * SECTOR_SIZE + dataLength;
  if (extent < SYSTEM_AREA_SECTORS || end > sectors * SECTOR_SIZE) {
    throw new IsoFormatError(
      `${what}: extent at sector ${extent}, ${dataLength} bytes, lies outside the volume (${sectors} sectors)`,
    );
  }
}

function readEntry(
  iso: Buffer,
  record: ReturnType<typeof readDirRecord>,
  index: number,
  where: string,
  sectors: number,
  rootExtent: number,
  files: Map<string, Buffer>,
  budget: { left: number },
): void {
  const id = record.identifier;
  if (index === 0 || index === 1) {
    const expected = index === 0 ? '"."' : '".."';
    if (id.length !== 1 || id[0] !== index || (record.flags & FLAG_DIRECTORY) === 0) {
      throw new IsoFormatError(`${where} should be the ${expected} directory record`);
    }
    if (index === 0 && record.extent !== rootExtent) {
      throw new IsoFormatError(
        `${where}: "." points at sector ${record.extent}, not the root directory (sector ${rootExtent})`,
      );
    }
    return;
  }
  const raw = id.toString('latin1');
  const shown = JSON.stringify(raw.replace(/[^\x20-\x7e]/g, '?'));
  if (id.length === 0 || !/^[\x21-\x7e]+$/.test(raw))
    throw new IsoFormatError(`${where}: file identifier ${shown} is not printable ASCII`);
  if ((record.flags & FLAG_DIRECTORY) !== 0)
    throw new IsoFormatError(`${where}: ${shown} is a subdirectory; a seed holds files only`);
  if ((record.flags & FLAG_MULTI_EXTENT) !== 0)
    throw new IsoFormatError(`${where}: ${shown} spans several extents, which seeds never need`);
  checkExtent(`file ${shown}`, record.extent, record.dataLength, sectors);
  const name = linuxIsofsName(raw);
  if (name.length === 0) throw new IsoFormatError(`${where}: file identifier ${shown} gives an empty name`);
  if (files.has(name)) throw new IsoFormatError(`${where}: two files are both named ${JSON.stringify(name)}`);
  if (record.dataLength > budget.left) {
    throw new IsoFormatError(
      `${where}: ${shown} (${record.dataLength} bytes) takes the files past the volume's size: records share their data, which seeds never do`,
    );
  }
  budget.left -= record.dataLength;
  const at = record.extent * SECTOR_SIZE;
  files.set(name, Buffer.from(iso.subarray(at, at + record.dataLength)));
}
