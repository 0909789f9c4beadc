/** The shared check of catalog edits (shared/catalog-edit.ts): what the renderer shows as the person types, and what the backend refuses. */
import { describe, expect, it } from 'vitest';
import {
  type CatalogEdit,
  CatalogEditError,
  DefaultsSetSchema,
  MachineTypeSaveSchema,
  applyCatalogEdit,
  catalogEditIssues,
} from '../../../shared/catalog-edit.js';
import { type ProviderConfig, formatIssue, validateProviderConfig } from '../../../shared/config.js';

const SHA = 'b'.repeat(64);
const config = (): ProviderConfig => ({
  type: 'kvm',
  kvm: {
    hosts: [{ name: 'edge', address: 'local' }],
    machineTypes: { small: { vcpus: 1, memoryMiB: 512, diskGiB: 10 }, big: { vcpus: 4, memoryMiB: 4096 } },
    images: { deb: { url: 'https://example.com/deb.qcow2', sha256: SHA } },
    defaults: { machineType: 'small', image: 'deb' },
  },
});
const lines = (edit: CatalogEdit, c: ProviderConfig = config()) => catalogEditIssues(c, edit).map(formatIssue);
const mt = (entry: Record<string, unknown>): CatalogEdit => ({ op: 'machineType:save', entry });

describe('catalogEditIssues: machine types', () => {
  it('accepts a new, valid machine type', () => {
    expect(lines(mt({ name: 'medium', vcpus: 2, memoryMiB: 2048, diskGiB: 20 }))).toEqual([]);
  });

  it('reports each field path first, in the config file wording', () => {
    expect(catalogEditIssues(config(), mt({ name: 'medium', vcpus: 0, memoryMiB: 64, diskGiB: 1.5 }))).toEqual([
      { path: 'kvm.machineTypes.medium.vcpus', field: 'vcpus', message: 'must be at least 1 (got 0)' },
      { path: 'kvm.machineTypes.medium.memoryMiB', field: 'memoryMiB', message: 'must be at least 128 (got 64)' },
      { path: 'kvm.machineTypes.medium.diskGiB', field: 'diskGiB', message: 'must be a whole number (got 1.5)' },
    ]);
    // The same words as the file's own validation.
    const file = config();
    file.kvm!.machineTypes.medium = { vcpus: 0, memoryMiB: 512 };
    expect(validateProviderConfig(file)).toMatchObject({
      ok: false,
      issues: [{ path: 'kvm.machineTypes.medium.vcpus', message: 'must be at least 1 (got 0)' }],
    });
  });

  it('reports empty fields and text where numbers belong, and a bad name', () => {
    expect(lines(mt({ name: '', vcpus: undefined, memoryMiB: 'lots', diskGiB: 10 }))).toEqual([
      'kvm.machineTypes.<new>: name must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit',
      'kvm.machineTypes.<new>.vcpus: required',
      'kvm.machineTypes.<new>.memoryMiB: expected a number, got the text "lots"',
    ]);
    expect(catalogEditIssues(config(), mt({ name: 'Big One', vcpus: 1, memoryMiB: 512, diskGiB: 1 }))[0]).toMatchObject(
      { field: 'name', path: 'kvm.machineTypes["Big One"]' },
    );
  });

  it('refuses a duplicate name, and a rename onto another entry', () => {
    expect(lines(mt({ name: 'big', vcpus: 1, memoryMiB: 512, diskGiB: 1 }))).toEqual([
      'kvm.machineTypes.big: a machine type named "big" already exists: choose another name, or edit that one',
    ]);
    expect(lines(mt({ name: 'big', previousName: 'small', vcpus: 1, memoryMiB: 512, diskGiB: 1 }))).toHaveLength(1);
    // Saving an entry under its own name is an edit, not a duplicate.
    expect(lines(mt({ name: 'big', previousName: 'big', vcpus: 8, memoryMiB: 512, diskGiB: 1 }))).toEqual([]);
  });

  it('refuses an edit of an entry that is gone', () => {
    expect(lines(mt({ name: 'x', previousName: 'gone', vcpus: 1, memoryMiB: 512, diskGiB: 1 }))).toEqual([
      'kvm.machineTypes.gone: no machine type named "gone" any more (known: small, big): it was renamed or removed meanwhile; reload the view',
    ]);
  });

  it('refuses removing the default, the last one, or one that does not exist', () => {
    expect(lines({ op: 'machineType:remove', name: 'small' })).toEqual([
      'kvm.defaults.machineType: "small" is the default machine type: make another one the default first',
    ]);
    expect(lines({ op: 'machineType:remove', name: 'big' })).toEqual([]);
    const one = config();
    delete one.kvm!.machineTypes.big;
    delete one.kvm!.defaults;
    expect(lines({ op: 'machineType:remove', name: 'small' }, one)).toEqual([
      'kvm.machineTypes: at least one machine type is required: add another before removing "small"',
    ]);
    expect(lines({ op: 'machineType:remove', name: 'nope' })).toEqual([
      'kvm.machineTypes.nope: no machine type named "nope" (known: small, big)',
    ]);
  });

  it('refuses everything when the config has no kvm block', () => {
    expect(lines({ op: 'machineType:remove', name: 'big' }, { type: 'gcp', gcp: {} })).toEqual([
      'kvm: the config has no usable kvm block: fix the config file (Config view) first',
    ]);
  });
});

describe('catalogEditIssues: images and defaults', () => {
  it('reports the URL scheme and the digest in the config wording', () => {
    expect(
      lines({ op: 'image:save', entry: { name: 'new', url: 'ftp://x/y', sha256: SHA.toUpperCase(), format: 'vmdk' } }),
    ).toEqual([
      'kvm.images.new.url: must be a URL with scheme https, http, file (got "ftp")',
      'kvm.images.new.sha256: must be lowercase hexadecimal',
      'kvm.images.new.format: must be one of qcow2, raw (got the text "vmdk")',
    ]);
    expect(
      lines({ op: 'image:save', entry: { name: 'new', url: 'file:///i.qcow2', sha256: 'abc', format: 'qcow2' } }),
    ).toEqual(['kvm.images.new.sha256: must be 64 hexadecimal characters']);
  });

  it('refuses removing the default image, and defaults that name nothing', () => {
    expect(lines({ op: 'image:remove', name: 'deb' })).toEqual([
      'kvm.defaults.image: "deb" is the default image: make another one the default first',
    ]);
    expect(lines({ op: 'defaults:set', machineType: 'huge', image: 'deb' })).toEqual([
      'kvm.defaults.machineType: no machine type named "huge" (known: small, big)',
    ]);
    expect(lines({ op: 'defaults:set' })).toEqual(['kvm.defaults: name a machineType or an image to make the default']);
    expect(DefaultsSetSchema.safeParse({}).success).toBe(false);
  });
});

describe('applyCatalogEdit', () => {
  it('adds at the end, and renames in place, moving the default with it', () => {
    const added = applyCatalogEdit(config(), mt({ name: 'medium', vcpus: 2, memoryMiB: 2048, diskGiB: 20 }));
    expect(Object.keys(added.kvm!.machineTypes)).toEqual(['small', 'big', 'medium']);
    const renamed = applyCatalogEdit(
      added,
      mt({ name: 'tiny', previousName: 'small', vcpus: 1, memoryMiB: 256, diskGiB: 5 }),
    );
    expect(Object.keys(renamed.kvm!.machineTypes)).toEqual(['tiny', 'big', 'medium']);
    expect(renamed.kvm!.machineTypes.tiny).toEqual({ vcpus: 1, memoryMiB: 256, diskGiB: 5 });
    expect(renamed.kvm!.defaults).toEqual({ machineType: 'tiny', image: 'deb' });
    expect(validateProviderConfig(renamed).ok).toBe(true);
    // The input is not changed.
    expect(Object.keys(added.kvm!.machineTypes)).toEqual(['small', 'big', 'medium']);
  });

  it('renames an image and its default; removes; sets defaults', () => {
    let c = applyCatalogEdit(config(), {
      op: 'image:save',
      entry: { name: 'debian', previousName: 'deb', url: 'file:///d.qcow2', sha256: SHA, format: 'raw' },
    });
    expect(c.kvm!.images).toEqual({ debian: { url: 'file:///d.qcow2', sha256: SHA, format: 'raw' } });
    expect(c.kvm!.defaults?.image).toBe('debian');
    c = applyCatalogEdit(c, { op: 'defaults:set', machineType: 'big' });
    expect(c.kvm!.defaults).toEqual({ machineType: 'big', image: 'debian' });
    c = applyCatalogEdit(c, { op: 'machineType:remove', name: 'small' });
    expect(Object.keys(c.kvm!.machineTypes)).toEqual(['big']);
    expect(validateProviderConfig(c).ok).toBe(true);
  });

  it('throws a CatalogEditError carrying the issues', () => {
    let error: unknown;
    try {
      applyCatalogEdit(config(), { op: 'machineType:remove', name: 'small' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CatalogEditError);
    expect(error).toMatchObject({
      name: 'CatalogEditError',
      message:
        'the machine type "small" cannot be removed: kvm.defaults.machineType: "small" is the default machine type: make another one the default first',
      issues: [{ path: 'kvm.defaults.machineType' }],
    });
  });

  it('the channel schema is the config entry schema plus the name', () => {
    expect(MachineTypeSaveSchema.safeParse({ name: 'a', vcpus: 1, memoryMiB: 128, diskGiB: 1 }).success).toBe(true);
    expect(MachineTypeSaveSchema.safeParse({ name: 'a', vcpus: 1, memoryMiB: 128, diskGiB: 1, extra: 1 }).success).toBe(
      false,
    );
    expect(MachineTypeSaveSchema.safeParse({ name: 'a', vcpus: 1, memoryMiB: 127, diskGiB: 1 }).success).toBe(false);
  });
});
