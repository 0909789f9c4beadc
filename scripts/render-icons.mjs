// Renders build/icons/icon.svg to the PNGs electron-builder packages (build/icons/NxN.png,
// 16 to 1024 px), with Debian's Chromium through playwright-core. Run by hand after
// changing the SVG (`node scripts/render-icons.mjs`) and commit the PNGs; CI never runs it.
// Same SVG + same Chromium = the same bytes (checked by running it twice).
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const dir = new URL('../build/icons/', import.meta.url);
const SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

const svg = readFileSync(new URL('icon.svg', dir), 'utf8').replace(/<!--[\s\S]*?-->\s*/g, '');
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
try {
  for (const size of SIZES) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    // The SVG as an image: drawn at exactly size × size, transparent around the rounded square.
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(
      `<!doctype html><html><body style="margin:0;background:transparent"><img src="${src}" width="${size}" height="${size}" style="display:block"></body></html>`,
    );
    await page.locator('img').evaluate((img) => img.decode());
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    writeFileSync(new URL(`${size}x${size}.png`, dir), png);
    await page.close();
    process.stdout.write(`build/icons/${size}x${size}.png\n`);
  }
} finally {
  await browser.close();
}
