/**
 * Fuzzing the seed ISO reader (`readSeedIso`): arbitrary bytes, and real seeds built by the
 * project's own builder with their fields rewritten. Whatever the bytes, the reader returns
 * a whole result or throws its own IsoFormatError: no other exception, no hang, and never
 * more memory than the image itself holds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildNoCloudSeed, buildSeedIso } from '../../../electron/services/provider/kvm/guest/seed-iso.js';
import { IsoFormatError, readSeedIso } from '../../support/iso9660-reader.js';
import { FUZZ_TEST_TIMEOUT_MS, describeThrown, fuzzParams, withinBudget } from './fuzz-params.js';

const SECTOR = 2048;
const PVD = 16 * SECTOR;

/** Seeds the mutations start from: what the app writes, and a few shapes around it. */
const SEEDS: Buffer[] = [
  buildNoCloudSeed({ userData: '#cloud-config\nhostname: ep-fuzz\n', metaData: 'instance-id: ep-fuzz-1\n' }),
  buildNoCloudSeed({
    userData: '#cloud-config\n',
    metaData: 'instance-id: x\n',
    vendorData: '#cloud-config\npackages: [qemu-guest-agent]\n',
    networkConfig: 'version: 2\n',
  }),
  buildSeedIso([
    { name: 'empty', data: '' },
    { name: 'a.b.c', data: 'x'.repeat(3000) },
    { name: 'z', data: Buffer.alloc(SECTOR, 7) },
  ]),
  buildSeedIso([]),
  // Many small files beside a larger one: room for records to be pointed at each other's data.
  buildSeedIso([
    { name: 'big', data: Buffer.alloc(16 * SECTOR, 1) },
    ...Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, data: 'x' })),
  ]),
].map((iso) => trimPadding(iso));

/** Byte offsets of the root directory's records in `iso` (the "." and ".." records included). */
function directoryRecords(iso: Buffer): number[] {
  const rootExtent = iso.readUInt32LE(PVD + 156 + 2);
  const rootSize = iso.readUInt32LE(PVD + 156 + 10);
  const out: number[] = [];
  for (let pos = 0; pos < rootSize;) {
    const length = iso[rootExtent * SECTOR + pos]!;
    if (length === 0) {
      pos = (Math.floor(pos / SECTOR) + 1) * SECTOR;
      continue;
    }
    out.push(rootExtent * SECTOR + pos);
    pos += length;
  }
  return out;
}
const RECORDS = SEEDS.map(directoryRecords);

/**
 * The builder pads every seed with 150 empty sectors; the fuzz keeps only what the volume
 * needs (and says so in the volume size), so that each case copies a few KiB, not 300.
 */
function trimPadding(iso: Buffer): Buffer {
  const used = usedSectors(iso);
  const out = Buffer.from(iso.subarray(0, used * SECTOR));
  out.writeUInt32LE(used, PVD + 80);
  out.writeUInt32BE(used, PVD + 84);
  return out;
}

function usedSectors(iso: Buffer): number {
  let last = 0;
  for (let s = 0; s * SECTOR < iso.length; s++) {
    if (iso.subarray(s * SECTOR, (s + 1) * SECTOR).some((b) => b !== 0)) last = s;
  }
  return last + 1;
}

/** Offsets worth hitting in the primary volume descriptor: the fields the reader checks. */
const PVD_FIELDS = [0, 1, 6, 40, 80, 84, 128, 130, 132, 136, 140, 148, 156, 158, 166, 181, 188, 881].map(
  (o) => PVD + o,
);

type Mutation =
  | { kind: 'byte'; offset: number; value: number }
  | { kind: 'both16' | 'both32'; offset: number; value: number }
  | { kind: 'splice'; offset: number; bytes: Uint8Array }
  | { kind: 'truncate'; sectors: number }
  /** Points records `from`…`to` at the extent of record `target`: files sharing their data. */
  | { kind: 'alias'; from: number; to: number; target: number };

const interesting32 = fc.oneof(
  fc.constantFrom(
    0,
    1,
    2,
    15,
    16,
    17,
    18,
    19,
    20,
    21,
    22,
    33,
    34,
    255,
    256,
    2047,
    2048,
    2049,
    0x7fffffff,
    0x80000000,
    0xffffffff,
  ),
  fc.integer({ min: 0, max: 0xffffffff }),
);

function offsetIn(length: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...PVD_FIELDS.filter((o) => o < length)) },
    // Descriptors, path tables and the root directory: sectors 16-24.
    { weight: 4, arbitrary: fc.integer({ min: PVD, max: Math.min(length, 25 * SECTOR) - 1 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: length - 1 }) },
  );
}

function mutation(length: number, records: number): fc.Arbitrary<Mutation> {
  const offset = offsetIn(length);
  const record = fc.nat(records - 1);
  return fc.oneof(
    fc.record({ kind: fc.constant('alias' as const), from: record, to: record, target: record }),
    fc.record({ kind: fc.constant('byte' as const), offset, value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({
      kind: fc.constant('both16' as const),
      offset,
      value: fc.oneof(fc.constantFrom(0, 1, 2048, 0xffff), fc.integer({ min: 0, max: 0xffff })),
    }),
    fc.record({ kind: fc.constant('both32' as const), offset, value: interesting32 }),
    fc.record({ kind: fc.constant('splice' as const), offset, bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) }),
    fc.record({
      kind: fc.constant('truncate' as const),
      sectors: fc.integer({ min: 0, max: Math.ceil(length / SECTOR) }),
    }),
  );
}

function apply(seed: Buffer, records: readonly number[], mutations: readonly Mutation[]): Buffer {
  let iso = Buffer.from(seed);
  for (const m of mutations) {
    switch (m.kind) {
      case 'byte':
        iso[m.offset % iso.length] = m.value;
        break;
      case 'both16': {
        const at = Math.min(m.offset, iso.length - 4);
        if (at >= 0) {
          iso.writeUInt16LE(m.value, at);
          iso.writeUInt16BE(m.value, at + 2);
        }
        break;
      }
      case 'both32': {
        const at = Math.min(m.offset, iso.length - 8);
        if (at >= 0) {
          iso.writeUInt32LE(m.value, at);
          iso.writeUInt32BE(m.value, at + 4);
        }
        break;
      }
      case 'splice':
        iso.set(m.bytes.subarray(0, Math.max(0, iso.length - m.offset)), Math.min(m.offset, iso.length));
        break;
      case 'truncate':
        iso = iso.subarray(0, m.sectors * SECTOR);
        break;
      case 'alias': {
        const target = records[m.target]!;
        if (target + 18 > iso.length) break;
        for (let r = Math.min(m.from, m.to); r <= Math.max(m.from, m.to); r++) {
          const at = records[r]!;
          if (at + 18 <= iso.length) iso.copy(iso, at + 2, target + 2, target + 18);
        }
        break;
      }
    }
    if (iso.length === 0) break;
  }
  return iso;
}

/** Reads `bytes`; fails the property on anything but a result or an IsoFormatError. */
function readChecked(bytes: Uint8Array): void {
  // A case is a few KiB: anything near this budget is a loop that walks far more than the input.
  const result = withinBudget(400, (): ReturnType<typeof readSeedIso> | undefined => {
    try {
      return readSeedIso(bytes);
    } catch (err) {
      if (!(err instanceof IsoFormatError))
        expect.fail(`readSeedIso threw something other than IsoFormatError: ${describeThrown(err)}`);
      expect(err.message.length).toBeGreaterThan(0);
      return undefined;
    }
  });
  if (result) {
    let total = 0;
    for (const data of result.files.values()) total += data.length;
    // What comes out is copied from the image: more than the image holds means the reader
    // handed out the same bytes many times over (an allocation an attacker can multiply).
    expect(total).toBeLessThanOrEqual(bytes.length);
  }
}

describe('fuzz: the seed ISO reader', () => {
  it('the seeds read back (the fuzz starts from valid images)', () => {
    for (const seed of SEEDS) expect(() => readSeedIso(seed)).not.toThrow();
  });

  it(
    'mutated real seeds: a result or IsoFormatError, never anything else',
    () => {
      const cases = fc
        .nat(SEEDS.length - 1)
        .chain((i) =>
          fc.tuple(
            fc.constant(i),
            fc.array(mutation(SEEDS[i]!.length, RECORDS[i]!.length), { minLength: 1, maxLength: 6 }),
          ),
        );
      fc.assert(
        fc.property(cases, ([i, mutations]) => readChecked(apply(SEEDS[i]!, RECORDS[i]!, mutations))),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );

  it(
    'arbitrary bytes, with and without a volume descriptor planted: a result or IsoFormatError',
    () => {
      const raw = fc.oneof(
        fc.uint8Array({ maxLength: 4 * SECTOR }),
        // Sector-sized images with "CD001" where the reader looks, so the walk goes past the first check.
        fc
          .tuple(
            fc.integer({ min: 17, max: 24 }),
            fc.uint8Array({ maxLength: 8 * SECTOR }),
            fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 8, maxLength: 8 }),
          )
          .map(([sectors, noise, types]) => {
            const iso = Buffer.alloc(sectors * SECTOR);
            iso.set(noise.subarray(0, iso.length - PVD), PVD);
            for (let s = 16, k = 0; s < sectors && k < types.length; s++, k++) {
              iso[s * SECTOR] = types[k]!;
              iso.write('CD001', s * SECTOR + 1, 'latin1');
              iso[s * SECTOR + 6] = 1;
            }
            return iso;
          }),
      );
      fc.assert(
        fc.property(raw, (bytes) => readChecked(bytes)),
        fuzzParams(),
      );
    },
    FUZZ_TEST_TIMEOUT_MS,
  );
});
