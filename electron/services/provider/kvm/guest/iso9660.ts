/**
 * ECMA-119 (ISO 9660) building blocks of the seed writer (seed-iso.ts), also read by the
 * tests' reader (test/support/iso9660-reader.ts): sector geometry, both-endian numbers,
 * the two date formats, directory records and file identifiers. Section numbers refer to
 * ECMA-119, 4th edition.
 */

/** Logical sector and logical block size: 2048 bytes, the only size CD-ROM readers expect. */
export const SECTOR_SIZE = 2048;
/** Sectors 0–15 are the system area (boot code on hybrid images); ours is all zeros. */
export const SYSTEM_AREA_SECTORS = 16;
/** Volume descriptor types (8.1.1). */
export const VD_PRIMARY = 1;
export const VD_TERMINATOR = 255;
export const STANDARD_ID = 'CD001';
/** Directory record flag bits (9.1.6). */
export const FLAG_DIRECTORY = 0x02;
/** A directory record without a system use field is 33 bytes plus its identifier (9.1). */
export const DIR_RECORD_FIXED = 33;

/** Writes a 16-bit number in both byte orders, little-endian first (7.2.3). */
export function putBoth16(buf: Buffer, offset: number, value: number): void {
  buf.writeUInt16LE(value, offset);
  buf.writeUInt16BE(value, offset + 2);
}

/** Writes a 32-bit number in both byte orders, little-endian first (7.3.3). */
export function putBoth32(buf: Buffer, offset: number, value: number): void {
  buf.writeUInt32LE(value, offset);
  buf.writeUInt32BE(value, offset + 4);
}

/** Writes `text` (ASCII) into a fixed-width field padded with spaces, as a- and d-character fields are (7.4). */
export function putPadded(buf: Buffer, offset: number, width: number, text: string): void {
  if (text.length > width) throw new RangeError(`"${text}" does not fit a ${width}-byte field`);
  buf.fill(0x20, offset, offset + width);
  buf.write(text, offset, 'latin1');
}

/** The earliest and latest instants both date formats can express (years since 1900 in one byte). */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2155;

function checkDate(date: Date): void {
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < MIN_YEAR || year > MAX_YEAR) {
    throw new RangeError(`ISO9660 dates must lie in the years ${MIN_YEAR}-${MAX_YEAR} (UTC), got ${String(date)}`);
  }
}

/**
 * The 17-byte volume descriptor date (8.4.26.1): "YYYYMMDDHHMMSScc" in digits, then the
 * offset from GMT in 15-minute units. Always written in UTC (offset 0) so that the output
 * does not depend on the machine's time zone. `undefined` is "not specified": 16 '0' digits.
 */
export function longDate(date: Date | undefined): Buffer {
  const out = Buffer.alloc(17);
  if (date === undefined) {
    out.write('0'.repeat(16), 0, 'latin1');
    return out;
  }
  checkDate(date);
  const two = (n: number) => String(n).padStart(2, '0');
  const digits =
    String(date.getUTCFullYear()).padStart(4, '0') +
    two(date.getUTCMonth() + 1) +
    two(date.getUTCDate()) +
    two(date.getUTCHours()) +
    two(date.getUTCMinutes()) +
    two(date.getUTCSeconds()) +
    two(Math.floor(date.getUTCMilliseconds() / 10));
  out.write(digits, 0, 'latin1');
  return out;
}

/** The 7-byte directory record date (9.1.5): years since 1900, month, day, h, m, s, GMT offset (UTC here). */
export function shortDate(date: Date): Buffer {
  checkDate(date);
  return Buffer.from([
    date.getUTCFullYear() - 1900,
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    0,
  ]);
}

/** The byte length of a directory record whose identifier is `idLength` bytes: even, padded (9.1.12). */
export function dirRecordLength(idLength: number): number {
  return DIR_RECORD_FIXED + idLength + (idLength % 2 === 0 ? 1 : 0);
}

export interface DirRecord {
  extent: number;
  dataLength: number;
  flags: number;
  /** The raw file identifier: 0x00 for ".", 0x01 for "..", else e.g. "user-data;1". */
  identifier: Buffer;
}

/** Writes one directory record at `offset` and returns its length (9.1). */
export function writeDirRecord(buf: Buffer, offset: number, record: DirRecord, recorded: Buffer): number {
  const length = dirRecordLength(record.identifier.length);
  buf[offset] = length;
  buf[offset + 1] = 0; // no extended attribute record
  putBoth32(buf, offset + 2, record.extent);
  putBoth32(buf, offset + 10, record.dataLength);
  recorded.copy(buf, offset + 18);
  buf[offset + 25] = record.flags;
  buf[offset + 26] = 0; // not interleaved: file unit size
  buf[offset + 27] = 0; // interleave gap
  putBoth16(buf, offset + 28, 1); // volume sequence number
  buf[offset + 32] = record.identifier.length;
  record.identifier.copy(buf, offset + 33);
  return length;
}

/**
 * Splits a file identifier into name, extension and version for the ordering of 9.3: the
 * separator is the first '.', the version follows ';'.
 */
function identifierParts(identifier: string): [string, string, number] {
  const semicolon = identifier.lastIndexOf(';');
  const base = semicolon < 0 ? identifier : identifier.slice(0, semicolon);
  const version = semicolon < 0 ? 0 : Number(identifier.slice(semicolon + 1));
  const dot = base.indexOf('.');
  return dot < 0 ? [base, '', version] : [base.slice(0, dot), base.slice(dot + 1), version];
}

/** Compares two strings as if the shorter were padded with spaces (0x20), as 9.3 requires. */
function comparePadded(a: string, b: string): number {
  const width = Math.max(a.length, b.length);
  const pa = a.padEnd(width, ' ');
  const pb = b.padEnd(width, ' ');
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}

/** Directory order (9.3): by name, then extension (space-padded byte order), then version descending. */
export function compareFileIdentifiers(a: string, b: string): number {
  const [an, ae, av] = identifierParts(a);
  const [bn, be, bv] = identifierParts(b);
  return comparePadded(an, bn) || comparePadded(ae, be) || bv - av;
}
