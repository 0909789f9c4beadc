// The packaged icons (build/icons, rendered from icon.svg by scripts/render-icons.mjs) and
// electron-builder's references to them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../../support/dist.js';

const icons = join(repoRoot, 'build', 'icons');
const SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

interface Png {
  width: number;
  height: number;
  colourType: number;
  /** The first pixel's RGBA (the top-left corner). */
  corner: number[];
}

/** Reads a PNG's header and its first pixel (for any filter, row 0's first pixel is stored as is). */
function readPng(file: string): Png {
  const data = readFileSync(file);
  expect(data.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  let offset = 8;
  let header: Buffer | undefined;
  const idat: Buffer[] = [];
  while (offset < data.length) {
    const length = data.readUInt32BE(offset);
    const type = data.toString('latin1', offset + 4, offset + 8);
    const body = data.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') idat.push(body);
    offset += 12 + length;
  }
  const pixels = inflateSync(Buffer.concat(idat));
  return {
    width: header!.readUInt32BE(0),
    height: header!.readUInt32BE(4),
    colourType: header![9]!,
    corner: [...pixels.subarray(1, 5)],
  };
}

describe('packaging icons', () => {
  it.each(SIZES)('has a %i px RGBA PNG with a transparent corner', (size) => {
    const png = readPng(join(icons, `${size}x${size}.png`));
    expect(png).toMatchObject({ width: size, height: size, colourType: 6 });
    expect(png.corner[3]).toBe(0);
  });

  it('renders them from an SVG kept beside them', () => {
    const svg = readFileSync(join(icons, 'icon.svg'), 'utf8');
    expect(svg).toMatch(/<svg [^>]*viewBox="0 0 1024 1024"/);
    const script = readFileSync(join(repoRoot, 'scripts', 'render-icons.mjs'), 'utf8');
    expect(script).toContain(`[${SIZES.join(', ')}]`);
  });

  it('points electron-builder at them for Linux, macOS and Windows', () => {
    const config = parse(readFileSync(join(repoRoot, 'build', 'electron-builder.yml'), 'utf8')) as {
      files: string[];
      linux: { icon: string };
      mac: { icon: string };
      win: { icon: string };
    };
    expect(config.linux.icon).toBe('build/icons');
    // macOS wants 512 px or more (electron-builder makes the .icns); Windows 256 px or more (the .ico).
    expect(readPng(join(repoRoot, config.mac.icon)).width).toBeGreaterThanOrEqual(512);
    expect(readPng(join(repoRoot, config.win.icon)).width).toBeGreaterThanOrEqual(256);
    // The window's own icon on Linux is packaged, at the path the shell loads it from.
    const shell = readFileSync(join(repoRoot, 'electron', 'shell', 'window.ts'), 'utf8');
    const used = /new URL\('\.\.\/\.\.\/\.\.\/(build\/icons\/[^']+)'/.exec(shell)?.[1];
    expect(used).toBe('build/icons/512x512.png');
    expect(config.files).toContain(used);
    expect(existsSync(join(repoRoot, used!))).toBe(true);
  });
});
