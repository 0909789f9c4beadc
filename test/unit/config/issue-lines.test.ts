import { describe, expect, it } from 'vitest';
import { lineOfPath } from '../../../electron/services/config/issue-lines.js';

const text = [
  'type: kvm', // 1
  'kvm:', // 2
  '  hosts:', // 3
  '    - name: edge-a', // 4
  '      address: local', // 5
  '    - name: edge-a', // 6
  '      address: 203.0.113.10', // 7
  '  images:', // 8
  '    ubuntu-24.04:', // 9
  '      url: https://example.test/u.img', // 10
  '      sha256: nothex', // 11
  '  machineTypes: { small: { vcpus: 0, memoryMiB: 512 } }', // 12
  '',
].join('\n');

describe('the line a config problem is about', () => {
  it('walks list items, map keys with dots in them and flow maps', () => {
    expect(lineOfPath(text, 'kvm.hosts[1].name')).toBe(6);
    expect(lineOfPath(text, 'kvm.images.ubuntu-24.04.sha256')).toBe(11);
    expect(lineOfPath(text, 'kvm.machineTypes.small.vcpus')).toBe(12);
  });

  it('a missing field points at its nearest parent; a broken or empty document has no line', () => {
    expect(lineOfPath(text, 'kvm.hosts[1].pool')).toBe(6);
    expect(lineOfPath(text, 'kvm.defaults')).toBe(2);
    expect(lineOfPath('kvm: [', 'kvm')).toBeUndefined();
    expect(lineOfPath(text, 'type')).toBe(1);
  });

  it('reads JSON too (JSON is YAML)', () => {
    expect(lineOfPath('{\n  "type": "kvm",\n  "kvm": {\n    "hosts": []\n  }\n}\n', 'kvm.hosts')).toBe(4);
  });
});
