/**
 * The Add image form's one object (shared/image-add-form.ts): a well-known image chosen,
 * typing that drops its checksum file, what a read fills in or takes back, and the
 * problems by field, the checksum file's among them, as test/browser/image-add.test.ts
 * sees them in the page.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../shared/config.js';
import {
  type ChecksumLookup,
  type ImageAddForm,
  NEW_IMAGE_ADD_FORM,
  afterFailedLookup,
  afterLookup,
  checkImageAddForm,
  checksumsUrlProblem,
  chooseKnownImage,
  editImageAdd,
  knownImageOf,
} from '../../../shared/image-add-form.js';
import type { PublishedDigestView } from '../../../shared/image-lookup.js';
import { KNOWN_IMAGES } from '../../../shared/known-images.js';

const config: ProviderConfig = {
  type: 'kvm',
  kvm: { hosts: [], machineTypes: { tiny: { vcpus: 1, memoryMiB: 128 } } },
};
const debian = KNOWN_IMAGES.find((k) => k.name === 'debian-12')!;
const digest = (algorithm: 'sha256' | 'sha512', hex: string): PublishedDigestView => ({
  algorithm,
  digest: hex,
  sumsUrl: 'https://example.com/SUMS',
  listedName: 'x.img',
  signature: { state: 'unsigned', tried: ['SUMS.gpg'] },
});
const form = (over: Partial<ImageAddForm>): ImageAddForm => ({ ...NEW_IMAGE_ADD_FORM, ...over });
const idle: ChecksumLookup = { state: 'idle' };

describe('Add image form', () => {
  it('chooses a well-known image: its URL, format and checksum file, its name unless one was typed, no digest yet', () => {
    const chosen = chooseKnownImage(form({ sha256: 'f'.repeat(64) }), debian.name)!;
    expect(chosen).toEqual({
      name: debian.name,
      url: debian.url,
      sha256: '',
      format: debian.format,
      checksums: debian.checksumsUrl,
      checksumsFor: debian.url,
    });
    expect(knownImageOf(chosen)).toBe(debian.name);
    expect(chooseKnownImage(form({ name: 'mine' }), debian.name)!.name).toBe('mine');
    // Another well-known image's name is the list's, not the person's: it follows the choice.
    expect(chooseKnownImage(form({ name: KNOWN_IMAGES[0]!.name }), debian.name)!.name).toBe(debian.name);
    expect(chooseKnownImage(form({}), 'nothing-known')).toBeUndefined();
    expect(knownImageOf(form({ url: 'https://example.com/x.img' }))).toBe('');
  });

  it("drops a well-known image's checksum file when its URL changes, and keeps a typed one", () => {
    const chosen = chooseKnownImage(NEW_IMAGE_ADD_FORM, debian.name)!;
    expect(editImageAdd(chosen, { name: 'deb' })).toEqual({ ...chosen, name: 'deb' });
    expect(editImageAdd(chosen, { url: `${debian.url} ` }).checksums).toBe(debian.checksumsUrl);
    const moved = editImageAdd(chosen, { url: 'https://mirror.example/debian.qcow2' });
    expect(moved.checksums).toBe('');
    expect(moved.checksumsFor).toBeUndefined();
    const typed = editImageAdd(chosen, { checksums: 'https://mirror.example/SHA512SUMS' });
    expect(typed).toEqual({ ...chosen, checksums: 'https://mirror.example/SHA512SUMS', checksumsFor: undefined });
    expect('checksumsFor' in typed).toBe(false);
    expect(editImageAdd(typed, { url: 'https://elsewhere.example/x.img' }).checksums).toBe(
      'https://mirror.example/SHA512SUMS',
    );
  });

  it('fills a SHA-256 read, never a SHA-512, and takes a filled digest back when a later read refuses the file', () => {
    const sha256 = digest('sha256', 'a'.repeat(64));
    expect(afterLookup(form({}), sha256).sha256).toBe('a'.repeat(64));
    expect(afterLookup(form({}), digest('sha512', 'c'.repeat(128))).sha256).toBe('');
    const before: ChecksumLookup = { state: 'found', found: sha256, url: 'https://example.com/x.img' };
    expect(afterFailedLookup(form({ sha256: 'a'.repeat(64) }), before).sha256).toBe('');
    expect(afterFailedLookup(form({ sha256: 'd'.repeat(64) }), before).sha256).toBe('d'.repeat(64));
    expect(afterFailedLookup(form({ sha256: 'a'.repeat(64) }), idle).sha256).toBe('a'.repeat(64));
  });

  it("checks the checksum file's URL as the lookup would: its bound, its scheme, relative to the image", () => {
    expect(checksumsUrlProblem('', '')).toBeUndefined();
    expect(checksumsUrlProblem('ftp://127.0.0.1/SUMS', 'https://example.com/x.img')).toBe(
      'the scheme ftp is not supported (use https, http or file)',
    );
    expect(checksumsUrlProblem('SHA256SUMS', 'https://example.com/x.img')).toBeUndefined();
    expect(checksumsUrlProblem('SHA256SUMS', '')).toBe(
      'SHA256SUMS is not a valid URL (https://, http:// or file://; a relative one needs the image URL)',
    );
    expect(checksumsUrlProblem(`https://example.com/${'s'.repeat(2048)}`, '')).toBe('must be at most 2048 characters');
  });

  it("says the checksum file's problem under its field: a typing mistake described, a failed read of the file it names announced", () => {
    const url = 'https://example.com/x.img';
    const typed = checkImageAddForm(config, form({ name: 'x', url, checksums: 'ftp://h/SUMS' }), idle);
    expect(typed).toMatchObject({
      problems: { checksums: 'the scheme ftp is not supported (use https, http or file)' },
      checksumsRead: false,
      canRead: false,
    });
    const named = 'https://example.com/missing';
    const failed: ChecksumLookup = {
      state: 'error',
      message: `there is no checksum file at ${named} (HTTP 404)`,
      sums: named,
    };
    expect(checkImageAddForm(config, form({ url, checksums: ` ${named}` }), failed)).toMatchObject({
      problems: { checksums: `No digest found: there is no checksum file at ${named} (HTTP 404)` },
      checksumsRead: true,
      canRead: true,
    });
    // A read beside the URL that failed is the status's to say; a file named since is not yet read.
    expect(checkImageAddForm(config, form({ url }), { ...failed, sums: '' }).problems.checksums).toBeUndefined();
    expect(
      checkImageAddForm(config, form({ url, checksums: 'https://example.com/other' }), failed).problems.checksums,
    ).toBeUndefined();
    expect(checkImageAddForm(config, form({ url }), { state: 'reading' }).canRead).toBe(false);
    expect(checkImageAddForm(config, form({}), idle).canRead).toBe(false);
  });

  it('rests on a SHA-512 read for the URL in the form while no sha256 is typed: Save may go on, and sends no sha256 of its own', () => {
    const url = 'https://example.com/disk.qcow2';
    const found = digest('sha512', 'c'.repeat(128));
    const lookup: ChecksumLookup = { state: 'found', found, url };
    const check = checkImageAddForm(config, form({ name: 'deb', url }), lookup);
    expect(check.pending).toEqual(found);
    expect(check.issues).toEqual([]);
    expect(check.entry).toEqual({ name: 'deb', url, sha256: '', format: 'qcow2' });
    // Read for another URL, or a sha256 typed: nothing pending, the sha256 is checked as it is.
    expect(checkImageAddForm(config, form({ name: 'deb', url: `${url}.2` }), lookup).pending).toBeUndefined();
    const typed = checkImageAddForm(config, form({ name: 'deb', url, sha256: 'nope' }), lookup);
    expect(typed.pending).toBeUndefined();
    expect(typed.problems.sha256).toMatch(/^kvm\.images\.deb\.sha256: /);
    expect(checkImageAddForm(config, form({ name: 'deb', url }), idle).problems.sha256).toMatch(
      /^kvm\.images\.deb\.sha256: /,
    );
  });
});
