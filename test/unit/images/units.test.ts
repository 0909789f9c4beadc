import { describe, expect, it } from 'vitest';
import { parseSize } from '../../../electron/services/images/units.js';
import { formatBytes } from '../../../shared/bytes.js';

describe('sizes', () => {
  it.each([
    ['20G', 20 * 1024 ** 3],
    ['20GiB', 20 * 1024 ** 3],
    ['20gb', 20 * 1024 ** 3],
    ['1.5T', 1.5 * 1024 ** 4],
    ['512M', 512 * 1024 ** 2],
    ['100K', 102_400],
    ['100000', 100_000],
    ['7B', 7],
    ['0', 0],
  ])('parseSize(%j) = %d', (text, bytes) => expect(parseSize(text)).toBe(bytes));

  it.each(['', 'lots', '-1G', '20X', '1e9', 'G'])('parseSize(%j) is refused', (text) =>
    expect(parseSize(text)).toBeUndefined(),
  );

  it('formatBytes prints binary units', () => {
    expect([0, 1023, 1024, 1536, 5 * 1024 ** 3].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.0 KiB',
      '1.5 KiB',
      '5.0 GiB',
    ]);
  });
});
