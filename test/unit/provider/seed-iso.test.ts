/**
 * The seed ISO: buildSeedIso and buildNoCloudSeed, read back with our reader (the tests'
 * test/support/iso9660-reader.ts): layout, determinism, bad input, and garbage refused.
 * isoinfo, blkid and the kernel's mount reading the same seeds: seed-iso-readers.test.ts.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildNoCloudSeed,
  buildSeedIso,
  DEFAULT_SEED_TIMESTAMP,
  MAX_SEED_FILE_BYTES,
  type SeedFile,
  SeedIsoError,
} from '../../../electron/services/provider/kvm/guest/seed-iso.js';
import { IsoFormatError, readSeedIso } from '../../support/iso9660-reader.js';
import { META_DATA, SECTOR, USER_DATA, asBuffer, noCloudFiles, tool, useWorkDir } from './seed-iso-fixture.js';

/** sha256 of buildSeedIso(noCloudFiles): a layout change must be deliberate (and noted in the changelog). */
const GOLDEN_SHA256 = 'ae30f8cab406d4bbfa86e66b45cf98f180a4f819d3e7347dc19055450a1be485';

/** Deterministic pseudo-random bytes (xorshift), so large fixtures are the same every run. */
function bytes(length: number, seed = 1): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

function expectRoundTrip(files: SeedFile[], iso: Buffer, volumeId = 'cidata'): void {
  const read = readSeedIso(iso);
  expect(read.volumeId).toBe(volumeId);
  expect([...read.files.keys()].sort()).toEqual(files.map((f) => f.name).sort());
  for (const file of files) expect(read.files.get(file.name)!.equals(asBuffer(file.data)), file.name).toBe(true);
}

const work = useWorkDir();

describe('buildSeedIso / readSeedIso', () => {
  it('round-trips the three NoCloud files: unicode, empty and 300 KiB content', () => {
    const files: SeedFile[] = [
      { name: 'user-data', data: USER_DATA + 'x'.repeat(300 * 1024) },
      { name: 'meta-data', data: META_DATA },
      { name: 'vendor-data', data: '' },
    ];
    const iso = buildSeedIso(files);
    expectRoundTrip(files, iso);
    expect(iso.length % SECTOR).toBe(0);
    // Binary data and a file that ends exactly on a sector boundary.
    const binary: SeedFile[] = [
      { name: 'user-data', data: bytes(300 * 1024) },
      { name: 'meta-data', data: bytes(SECTOR, 7) },
      { name: 'vendor-data', data: new Uint8Array(0) },
    ];
    expectRoundTrip(binary, buildSeedIso(binary));
  });

  it('lays the volume out as ECMA-119 says', () => {
    const iso = buildSeedIso(noCloudFiles);
    expect(iso.subarray(0, 16 * SECTOR).every((b) => b === 0)).toBe(true);
    const pvd = 16 * SECTOR;
    expect(iso[pvd]).toBe(1);
    expect(iso.toString('latin1', pvd + 1, pvd + 6)).toBe('CD001');
    expect(iso.toString('latin1', pvd + 40, pvd + 72)).toBe('cidata'.padEnd(32, ' '));
    expect(iso.readUInt32LE(pvd + 80) * SECTOR).toBe(iso.length);
    expect(iso.readUInt32BE(pvd + 84) * SECTOR).toBe(iso.length);
    expect(iso.readUInt16LE(pvd + 128)).toBe(SECTOR);
    expect(iso.toString('latin1', pvd + 813, pvd + 830)).toBe('2000010100000000\0');
    expect(iso[pvd + 881]).toBe(1);
    expect(iso[17 * SECTOR]).toBe(255);
    expect(iso.toString('latin1', 17 * SECTOR + 1, 17 * SECTOR + 6)).toBe('CD001');
    // L and M path tables: the root alone, at sector 20, in little- and big-endian order.
    expect(iso.readUInt32LE(pvd + 140)).toBe(18);
    expect(iso.readUInt32BE(pvd + 148)).toBe(19);
    expect(iso.readUInt32LE(18 * SECTOR + 2)).toBe(20);
    expect(iso.readUInt32BE(19 * SECTOR + 2)).toBe(20);
    // Directory records are named NAME;1, sorted.
    const dir = iso.toString('latin1', 20 * SECTOR, 21 * SECTOR);
    const order = ['meta-data;1', 'user-data;1', 'vendor-data;1'].map((id) => dir.indexOf(id));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('is deterministic; the timestamp option changes the bytes, not the files', () => {
    const a = buildSeedIso(noCloudFiles);
    const b = buildSeedIso(noCloudFiles.map((f) => ({ ...f })).reverse());
    expect(a.equals(b)).toBe(true);
    expect(buildSeedIso(noCloudFiles, { timestamp: DEFAULT_SEED_TIMESTAMP }).equals(a)).toBe(true);
    const later = buildSeedIso(noCloudFiles, { timestamp: new Date('2024-05-06T07:08:09Z') });
    expect(later.equals(a)).toBe(false);
    expect(later.length).toBe(a.length);
    expectRoundTrip(noCloudFiles, later);
  });

  it('gives the same bytes as before for a typical seed (change only on purpose)', () => {
    const iso = buildSeedIso(noCloudFiles);
    // 16 of system area, 2 descriptors, 2 path tables, 1 directory, 2 of data, 150 of padding.
    expect(iso.length).toBe(173 * SECTOR);
    expect(createHash('sha256').update(iso).digest('hex')).toBe(GOLDEN_SHA256);
  });

  it('builds the NoCloud seed by role', () => {
    const iso = buildNoCloudSeed({ userData: USER_DATA, metaData: META_DATA, vendorData: '' });
    expect(iso.equals(buildSeedIso(noCloudFiles))).toBe(true);
    expect([
      ...readSeedIso(buildNoCloudSeed({ userData: 'a', metaData: 'b', networkConfig: 'c' })).files.keys(),
    ]).toEqual(['meta-data', 'network-config', 'user-data']);
  });

  it('takes a custom volume id', () => {
    expect(readSeedIso(buildSeedIso(noCloudFiles, { volumeId: 'CIDATA' })).volumeId).toBe('CIDATA');
  });

  it('spreads a long directory over several sectors, no record crossing a boundary', () => {
    const files: SeedFile[] = Array.from({ length: 120 }, (_, i) => ({
      name: `file-${String(i).padStart(3, '0')}-${'x'.repeat(21)}`,
      data: `content ${i}`,
    }));
    const iso = buildSeedIso(files);
    const rootSize = iso.readUInt32LE(16 * SECTOR + 156 + 10);
    expect(rootSize).toBeGreaterThan(2 * SECTOR);
    expect(rootSize % SECTOR).toBe(0);
    expectRoundTrip(files, iso);
    const listing = tool('isoinfo', ['-l', '-i', work.writeIso('long-dir.iso', iso)], 'genisoimage');
    for (const f of files) expect(listing).toContain(`${f.name};1`);
  });

  it('round-trips any valid file set (property)', () => {
    const nameChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_.'.split(''));
    const name = fc
      .array(nameChar, { minLength: 1, maxLength: 30 })
      .map((cs) => cs.join(''))
      .filter((n) => !n.endsWith('.'));
    const data = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.uint8Array({ maxLength: 5000 }));
    const fileSet = fc.uniqueArray(fc.record({ name, data }), { selector: (f) => f.name, minLength: 0, maxLength: 40 });
    fc.assert(
      fc.property(fileSet, (files) => {
        const iso = buildSeedIso(files);
        expectRoundTrip(files, iso);
        expect(buildSeedIso(files).equals(iso)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});

describe('bad input', () => {
  const one =
    (name: string, data: string | Uint8Array = 'x') =>
    () =>
      buildSeedIso([{ name, data }]);

  it('rejects duplicate names', () => {
    expect(() => buildSeedIso([...noCloudFiles, { name: 'meta-data', data: 'again' }])).toThrow(
      new SeedIsoError('seed file "meta-data" is listed more than once'),
    );
  });

  it.each([
    ['', /must not be empty/],
    ['a/b', /"a\/b" is invalid: .*no "\/"/],
    ['User-Data', /"User-Data" is invalid: .*no uppercase/],
    ['user data', /is invalid/],
    ['ü', /is invalid/],
    ['a'.repeat(31), /is 31 characters long: a seed file name is 1-30 characters/],
    ['.', /must not end with "."/],
    ['..', /must not end with "."/],
    ['user-data.', /must not end with "."/],
    ['user-data;1', /is invalid/],
  ])('rejects the file name %j', (name, message) => {
    expect(one(name)).toThrow(SeedIsoError);
    expect(one(name)).toThrow(message);
  });

  it('rejects an oversized file and an oversized total, naming the file and its size', () => {
    expect(one('user-data', new Uint8Array(MAX_SEED_FILE_BYTES + 1))).toThrow(
      'seed file "user-data" is 8388609 bytes (8.0 MiB); a seed file may be at most 8388608 bytes (8.0 MiB)',
    );
    expect(one('user-data', new Uint8Array(MAX_SEED_FILE_BYTES))).not.toThrow();
    const six = new Uint8Array(6 * 1024 * 1024);
    expect(() => buildSeedIso(['a', 'b', 'c'].map((name) => ({ name, data: six })))).toThrow(
      'seed files total more than 16777216 bytes (16.0 MiB) (reached 18874368 bytes (18.0 MiB) with "c", 6291456 bytes (6.0 MiB))',
    );
  });

  it('rejects too many files, a bad volume id and an unrecordable timestamp', () => {
    const many = Array.from({ length: 257 }, (_, i) => ({ name: `f${i}`, data: '' }));
    expect(() => buildSeedIso(many)).toThrow('a seed holds at most 256 files, got 257');
    expect(() => buildSeedIso(noCloudFiles, { volumeId: '' })).toThrow(/volume id "" is invalid/);
    expect(() => buildSeedIso(noCloudFiles, { volumeId: 'ci data' })).toThrow(/volume id "ci data" is invalid/);
    expect(() => buildSeedIso(noCloudFiles, { volumeId: 'x'.repeat(33) })).toThrow(SeedIsoError);
    expect(() => buildSeedIso(noCloudFiles, { timestamp: new Date('1899-12-31T00:00:00Z') })).toThrow(
      /years 1900-2155/,
    );
    expect(() => buildSeedIso(noCloudFiles, { timestamp: new Date(Number.NaN) })).toThrow(
      'timestamp must be a valid Date',
    );
    expect(() => buildSeedIso([{ name: 'a', data: 42 as unknown as string }])).toThrow(
      'seed file "a": data must be a string or a Uint8Array',
    );
  });
});

describe('readSeedIso on garbage', () => {
  const good = () => buildSeedIso(noCloudFiles);

  it.each<[string, () => Uint8Array, RegExp]>([
    ['empty input', () => new Uint8Array(0), /0 bytes is too short for an ISO9660 image/],
    ['random bytes', () => bytes(40 * SECTOR, 3), /sector 16 is not an ISO9660 volume descriptor/],
    [
      'zeros',
      () => new Uint8Array(40 * SECTOR),
      /sector 16 is not an ISO9660 volume descriptor: standard identifier is "\.\.\.\.\."/,
    ],
    ['a ragged size', () => good().subarray(0, 40 * SECTOR + 5), /not a multiple of the 2048-byte sector/],
    ['a truncated image', () => good().subarray(0, 30 * SECTOR), /image is truncated: the volume is \d+ sectors/],
    [
      'disagreeing both-endian fields',
      () => {
        const iso = good();
        iso.writeUInt32BE(999, 16 * SECTOR + 84);
        return iso;
      },
      /volume space size: little-endian value \d+ and big-endian value 999 disagree/,
    ],
    [
      'no terminator',
      () => {
        const iso = good();
        iso[17 * SECTOR] = 2;
        for (let s = 18; s < 90; s++) iso.write('\x02CD001\x01', s * SECTOR, 'latin1');
        return iso;
      },
      /no volume descriptor set terminator/,
    ],
    [
      'a record crossing a sector boundary',
      () => {
        // 29-character names: 30 records of 64 bytes after "." and "..", leaving 60 bytes of the first sector.
        const iso = buildSeedIso(
          Array.from({ length: 40 }, (_, i) => ({ name: `f${String(i).padStart(2, '0')}`.padEnd(29, 'x'), data: '' })),
        );
        const dir = 20 * SECTOR;
        let pos = 0;
        while (iso[dir + pos] !== 0) pos += iso[dir + pos]!;
        expect(SECTOR - pos).toBe(60);
        iso[dir + pos] = SECTOR - pos + 10;
        return iso;
      },
      /crosses a sector boundary/,
    ],
    [
      'a path table that misses the root',
      () => {
        const iso = good();
        iso.writeUInt32BE(21, 19 * SECTOR + 2);
        return iso;
      },
      /type M path table \(sector 19\) does not start with the root directory \(sector 20\)/,
    ],
    [
      'a file extent outside the volume',
      () => {
        const iso = good();
        const at = iso.indexOf('meta-data;1', 20 * SECTOR, 'latin1') - 33;
        iso.writeUInt32LE(100_000, at + 2);
        iso.writeUInt32BE(100_000, at + 6);
        return iso;
      },
      /file "meta-data;1": extent at sector 100000, \d+ bytes, lies outside the volume/,
    ],
  ])('refuses %s', (_what, make, message) => {
    expect(() => readSeedIso(make())).toThrow(IsoFormatError);
    expect(() => readSeedIso(make())).toThrow(message);
  });

  it('refuses records that all name one large extent, before copying it over and over (found by fuzzing)', () => {
    // test/unit/fuzz/iso-reader.test.ts: 60 one-byte files pointed at a 32 KiB file read back
    // as 60 copies of it, more bytes than the image holds. A full-size directory of such
    // records would have asked for gigabytes from a 4 MiB image.
    const files = [
      { name: 'big', data: Buffer.alloc(16 * SECTOR, 1) },
      ...Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, data: 'x' })),
    ];
    const iso = buildSeedIso(files);
    expectRoundTrip(files, iso);
    const dir = 20 * SECTOR;
    const big = iso.indexOf('big;1', dir, 'latin1') - 33;
    for (let i = 0; i < 60; i++) {
      const at = iso.indexOf(`f${i};1`, dir, 'latin1') - 33;
      iso.copy(iso, at + 2, big + 2, big + 18); // extent and data length, both byte orders
    }
    expect(() => readSeedIso(iso)).toThrow(IsoFormatError);
    expect(() => readSeedIso(iso)).toThrow(/takes the files past the volume's size: records share their data/);
  });

  it('reads a seed that genisoimage wrote, naming files as Linux does', () => {
    const src = join(work.path, 'genisoimage-src');
    mkdirSync(src, { recursive: true });
    for (const f of noCloudFiles) writeFileSync(join(src, f.name), f.data);
    const out = join(work.path, 'genisoimage.iso');
    tool(
      'genisoimage',
      ['-quiet', '-o', out, '-V', 'cidata', '-r', '-J', ...noCloudFiles.map((f) => join(src, f.name))],
      'genisoimage',
    );
    const read = readSeedIso(readFileSync(out));
    expect(read.volumeId).toBe('cidata');
    // Without Rock Ridge, Linux shows genisoimage's 8.3 names lowercased: USER_DAT.;1 → user_dat.
    expect([...read.files.keys()].sort()).toEqual(['meta_dat', 'user_dat', 'vendor_d']);
    expect(read.files.get('user_dat')!.toString('utf8')).toBe(USER_DATA);
  });
});
