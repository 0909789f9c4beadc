/** The host form's validation: the config's own rules, applied to one candidate against the current config. */
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../shared/config.js';
import {
  EMPTY_HOST_FORM,
  formToHost,
  hostToForm,
  issuesByField,
  validateHostCandidate,
} from '../../../shared/host-form.js';

const config: ProviderConfig = {
  type: 'kvm',
  kvm: {
    hosts: [
      { name: 'local', address: 'local' },
      { name: 'edge-a', address: '203.0.113.10', sshUser: 'root' },
      { name: 'edge-b', address: 'edge-b.example' },
    ],
    machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
  },
};

const texts = (candidate: unknown, replacing?: string) =>
  validateHostCandidate(config, candidate, replacing ? { replacing } : {}).map((i) => i.text);

describe('validateHostCandidate', () => {
  it('accepts a valid new host and a valid edit', () => {
    expect(texts({ name: 'edge-c', address: '127.0.0.1', sshPort: 2222, identityFile: '/k' })).toEqual([]);
    expect(texts({ name: 'edge-a', address: '203.0.113.11' }, 'edge-a')).toEqual([]);
  });

  it('reports field problems path-first at the index the host will take', () => {
    expect(texts({ name: 'Bad_Name', address: 'x y' })).toEqual([
      'kvm.hosts[3].name: must be a lowercase DNS label (a-z, 0-9 and "-", at most 63 characters, not starting or ending with "-")',
      'kvm.hosts[3].address: must be "local", a hostname or an IP address (user and port go in sshUser and sshPort)',
    ]);
    expect(texts({ address: 'h' })).toEqual(['kvm.hosts[3].name: required']);
  });

  it('reports a duplicate name on the candidate, also when editing a host that comes before the other', () => {
    expect(texts({ name: 'edge-b', address: 'h' })).toEqual([
      'kvm.hosts[3].name: duplicate host name "edge-b" (also kvm.hosts[2])',
    ]);
    // edge-a (index 1) renamed to edge-b (index 2): the candidate is the one told, with both real indexes.
    expect(texts({ name: 'edge-b', address: 'h' }, 'edge-a')).toEqual([
      'kvm.hosts[1].name: duplicate host name "edge-b" (also kvm.hosts[2])',
    ]);
    // Keeping its own name is no duplicate.
    expect(texts({ name: 'edge-b', address: 'h' }, 'edge-b')).toEqual([]);
  });

  it('applies the cross-field rules: network or bridge, no SSH fields on local', () => {
    expect(texts({ name: 'n', address: 'h', network: 'default', bridge: 'br0' })).toEqual([
      'kvm.hosts[3].bridge: set either network or bridge, not both',
    ]);
    expect(texts({ name: 'n', address: 'local', sshPort: 22 })).toEqual([
      'kvm.hosts[3].sshPort: not used when address is "local" (this machine is reached through its libvirt socket)',
    ]);
  });

  it('groups by field, in form order, and ignores problems elsewhere in the config', () => {
    const broken = structuredClone(config);
    broken.kvm!.defaults = { machineType: 'nope' };
    const issues = validateHostCandidate(broken, { name: 'n', address: 'h', sshPort: 70000, sshUser: '1bad' });
    expect(issues.map((i) => i.field)).toEqual(['sshUser', 'sshPort']);
    expect(issuesByField(issues).sshPort).toBe('kvm.hosts[3].sshPort: must be at most 65535 (got 70000)');
  });

  it('works without a config (first host)', () => {
    expect(texts({})).toEqual(expect.arrayContaining([expect.stringMatching(/name: required/)]));
    expect(validateHostCandidate(undefined, { name: 'a', address: 'local' })).toEqual([]);
    expect(validateHostCandidate(undefined, { address: 'local' }).map((i) => i.text)).toEqual([
      'kvm.hosts[0].name: required',
    ]);
  });
});

describe('the form', () => {
  it('turns typed text into a candidate: trimmed, empty left out, a port of digits as a number', () => {
    expect(formToHost({ ...EMPTY_HOST_FORM, name: ' a ', address: 'h', sshPort: '2222' })).toEqual({
      name: 'a',
      address: 'h',
      sshPort: 2222,
    });
    expect(formToHost({ ...EMPTY_HOST_FORM, name: 'a', address: 'h', sshPort: 'ssh' })).toEqual({
      name: 'a',
      address: 'h',
      sshPort: 'ssh',
    });
    expect(
      validateHostCandidate(config, formToHost({ ...EMPTY_HOST_FORM, name: 'a', address: 'h', sshPort: 'ssh' })).map(
        (i) => i.field,
      ),
    ).toEqual(['sshPort']);
  });

  it('round-trips a host through the form', () => {
    const host = {
      name: 'e',
      address: '10.0.0.1',
      sshUser: 'root',
      sshPort: 2222,
      identityFile: '~/.ssh/k',
      bridge: 'br0',
      domainType: 'qemu' as const,
    };
    expect(formToHost(hostToForm(host))).toEqual(host);
  });
});
