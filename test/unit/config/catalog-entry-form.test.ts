/**
 * The catalog's entry forms (shared/catalog-entry-form.ts): the entry a form makes (text
 * trimmed, numbers parsed where the save schema wants one), and its problems grouped by
 * field in the words of the backend's check, with what the browser test pins
 * (test/browser/catalog.test.ts) said the same way here.
 */
import { describe, expect, it } from 'vitest';
import {
  NEW_IMAGE_FORM,
  NEW_MACHINE_TYPE_FORM,
  checkCatalogEntry,
  formEntry,
  imageForm,
  machineTypeForm,
} from '../../../shared/catalog-entry-form.js';
import type { ProviderConfig } from '../../../shared/config.js';

const SHA = 'b'.repeat(64);
const config: ProviderConfig = {
  type: 'kvm',
  kvm: {
    hosts: [{ name: 'edge', address: 'local' }],
    machineTypes: { tiny: { vcpus: 1, memoryMiB: 128, diskGiB: 1 } },
    images: { deb: { url: 'https://example.com/deb.qcow2', sha256: SHA, format: 'qcow2' } },
  },
};

describe('catalog entry forms', () => {
  it('make the entry the save takes: trimmed text, numbers where the schema has them, text that is not one as typed', () => {
    expect(formEntry('machineType', { name: ' medium ', vcpus: ' 2', memoryMiB: 'lots', diskGiB: '' })).toEqual({
      name: 'medium',
      vcpus: 2,
      memoryMiB: 'lots',
      diskGiB: undefined,
    });
    expect(formEntry('image', { ...NEW_IMAGE_FORM, name: 'x', url: ' file:///x ', sha256: '42' }, 'old')).toEqual({
      previousName: 'old',
      name: 'x',
      url: 'file:///x',
      sha256: '42',
      format: 'qcow2',
    });
    expect(machineTypeForm({ name: 'tiny', vcpus: 1, memoryMiB: 128, diskGiB: 1 })).toEqual({
      name: 'tiny',
      vcpus: '1',
      memoryMiB: '128',
      diskGiB: '1',
    });
    expect(imageForm({ name: 'deb', url: 'u', sha256: SHA, format: 'raw' })).toEqual({
      name: 'deb',
      url: 'u',
      sha256: SHA,
      format: 'raw',
    });
  });

  it('group the problems under their fields, path first, every one also in order for the reason Save gives', () => {
    const check = checkCatalogEntry(config, 'machineType', {
      ...NEW_MACHINE_TYPE_FORM,
      name: 'Medium One',
      vcpus: '0',
      memoryMiB: 'lots',
    });
    expect(check.problems).toEqual({
      name: 'kvm.machineTypes["Medium One"]: name must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit',
      vcpus: 'kvm.machineTypes["Medium One"].vcpus: must be at least 1 (got 0)',
      memoryMiB: 'kvm.machineTypes["Medium One"].memoryMiB: expected a number, got the text "lots"',
    });
    expect(check.issues).toEqual([check.problems.name, check.problems.vcpus, check.problems.memoryMiB]);
    expect(check.general).toEqual([]);
    const ok = checkCatalogEntry(config, 'machineType', {
      name: 'medium',
      vcpus: '2',
      memoryMiB: '1024',
      diskGiB: '5',
    });
    expect(ok).toEqual({
      problems: {},
      general: [],
      issues: [],
      entry: { name: 'medium', vcpus: 2, memoryMiB: 1024, diskGiB: 5 },
    });
  });

  it('join two problems of one field; say the problems of the whole entry apart', () => {
    const dup = checkCatalogEntry(config, 'image', {
      ...NEW_IMAGE_FORM,
      name: 'deb',
      url: 'ftp://nowhere/x',
      sha256: SHA,
    });
    expect(dup.problems).toEqual({
      name: 'kvm.images.deb: a image named "deb" already exists: choose another name, or edit that one',
      url: 'kvm.images.deb.url: must be a URL with scheme https, http, file (got "ftp")',
    });
    const gone = checkCatalogEntry(
      config,
      'machineType',
      machineTypeForm({ name: 'x', vcpus: 1, memoryMiB: 128, diskGiB: 1 }),
      { previousName: 'gone' },
    );
    expect(gone.general).toEqual([
      'kvm.machineTypes.gone: no machine type named "gone" any more (known: tiny): it was renamed or removed meanwhile; reload the view',
    ]);
    expect(gone.problems).toEqual({});
    expect(gone.entry).toMatchObject({ previousName: 'gone', name: 'x' });
    expect(checkCatalogEntry(undefined, 'image', NEW_IMAGE_FORM).general).toEqual([
      'kvm: the config has no usable kvm block: fix the config file (Config view) first',
    ]);
    const name = checkCatalogEntry(
      config,
      'machineType',
      { ...NEW_MACHINE_TYPE_FORM, name: 'Big One' },
      { previousName: 'Bad Old' },
    );
    expect(name.problems.name).toBe(
      'kvm.machineTypes["Big One"]: name must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit; kvm.machineTypes["Big One"]: previous name must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit',
    );
  });

  it('take a value Save fills in for an empty field, and send the field as typed', () => {
    const form = { ...NEW_IMAGE_FORM, name: 'deb-13', url: 'https://example.com/d.qcow2' };
    expect(checkCatalogEntry(config, 'image', form).problems.sha256).toMatch(/^kvm\.images\.deb-13\.sha256: /);
    const filled = checkCatalogEntry(config, 'image', form, { filled: { sha256: '0'.repeat(64) } });
    expect(filled.issues).toEqual([]);
    expect(filled.entry.sha256).toBe('');
    // A typed sha256 is checked as typed: the stand-in is for an empty field only.
    expect(
      checkCatalogEntry(config, 'image', { ...form, sha256: 'nope' }, { filled: { sha256: '0'.repeat(64) } }).problems
        .sha256,
    ).toBeDefined();
  });
});
