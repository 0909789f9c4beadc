import { describe, expect, it } from 'vitest';
import { formatIssue, validateProviderConfig } from '../../../shared/config.js';
import { mutate, validConfig } from './helpers.js';

function messages(input: unknown): string[] {
  const result = validateProviderConfig(input);
  return result.ok ? [] : result.issues.map(formatIssue);
}

describe('validateProviderConfig', () => {
  it('accepts the canonical config', () => {
    expect(messages(validConfig())).toEqual([]);
  });

  // One case per rule (docs/config.md, "Rules"). Each expects exactly the message(s) given.
  const cases: Array<[rule: string, edit: (c: Record<string, any>) => void, expected: string[]]> = [
    ['type is required', (c) => delete c.type, ['type: required']],
    ['type is an enum', (c) => (c.type = 'aws'), ['type: must be one of kvm, gcp, kubernetes (got the text "aws")']],
    [
      'envelope: a block that does not match type',
      (c) => (c.gcp = { project: 'p' }),
      ['gcp: type is kvm but a gcp block is set'],
    ],
    [
      'envelope: every mismatching block is named',
      (c) => {
        c.type = 'gcp';
        c.gcp = {};
        c.kubernetes = {};
      },
      ['kvm: type is gcp but a kvm block is set', 'kubernetes: type is gcp but a kubernetes block is set'],
    ],
    ['envelope: kvm block required for type kvm', (c) => delete c.kvm, ['kvm: required when type is kvm']],
    ['unknown top-level field', (c) => (c.kvmm = {}), ['kvmm: unknown field (did you mean "kvm"?)']],
    [
      'unknown host field, with suggestion',
      (c) => (c.kvm.hosts[1].adress = 'x'),
      ['kvm.hosts[1].adress: unknown field (did you mean "address"?)'],
    ],
    [
      'unknown field without a near match lists known ones',
      (c) => (c.kvm.proxy.colour = 'red'),
      ['kvm.proxy.colour: unknown field (known: port)'],
    ],
    ['hosts required', (c) => delete c.kvm.hosts, ['kvm.hosts: required']],
    ['hosts is a list', (c) => (c.kvm.hosts = { a: 1 }), ['kvm.hosts: expected a list, got a map']],
    ['at least one host', (c) => (c.kvm.hosts = []), ['kvm.hosts: at least one host is required']],
    ['host name required', (c) => delete c.kvm.hosts[1].name, ['kvm.hosts[1].name: required']],
    [
      'host name is a DNS label',
      (c) => (c.kvm.hosts[1].name = 'Edge_A'),
      [expect.stringMatching(/^kvm\.hosts\[1\]\.name: must be a lowercase DNS label/)],
    ],
    [
      'host name at most 63 characters',
      (c) => (c.kvm.hosts[1].name = 'a'.repeat(64)),
      [expect.stringMatching(/^kvm\.hosts\[1\]\.name: must be a lowercase DNS label/)],
    ],
    [
      'duplicate host names',
      (c) => (c.kvm.hosts[1].name = 'local'),
      ['kvm.hosts[1].name: duplicate host name "local" (also kvm.hosts[0])'],
    ],
    ['address required', (c) => delete c.kvm.hosts[1].address, ['kvm.hosts[1].address: required']],
    [
      'address is a host, an IP or local',
      (c) => (c.kvm.hosts[1].address = 'root@edge:22'),
      [expect.stringMatching(/^kvm\.hosts\[1\]\.address: must be "local", a hostname or an IP address/)],
    ],
    ['sshPort below range', (c) => (c.kvm.hosts[1].sshPort = 0), ['kvm.hosts[1].sshPort: must be at least 1 (got 0)']],
    [
      'sshPort above range',
      (c) => (c.kvm.hosts[1].sshPort = 65536),
      ['kvm.hosts[1].sshPort: must be at most 65535 (got 65536)'],
    ],
    [
      'sshPort is a number',
      (c) => (c.kvm.hosts[1].sshPort = '22'),
      ['kvm.hosts[1].sshPort: expected a number, got the text "22"'],
    ],
    [
      'ssh fields are not used for local',
      (c) => (c.kvm.hosts[0].sshPort = 22),
      [expect.stringMatching(/^kvm\.hosts\[0\]\.sshPort: not used when address is "local"/)],
    ],
    [
      'socketPath is absolute',
      (c) => (c.kvm.hosts[1].socketPath = 'run/libvirt-sock'),
      ['kvm.hosts[1].socketPath: must be an absolute path'],
    ],
    [
      'network and bridge are exclusive',
      (c) => (c.kvm.hosts[1].network = 'default'),
      ['kvm.hosts[1].bridge: set either network or bridge, not both'],
    ],
    [
      'domainType is an enum',
      (c) => (c.kvm.hosts[1].domainType = 'xen'),
      ['kvm.hosts[1].domainType: must be one of auto, kvm, qemu (got the text "xen")'],
    ],
    ['machineTypes required', (c) => delete c.kvm.machineTypes, ['kvm.machineTypes: required']],
    [
      'at least one machine type',
      (c) => (c.kvm.machineTypes = {}),
      ['kvm.machineTypes: at least one machine type is required'],
    ],
    [
      'machine type names',
      (c) => (c.kvm.machineTypes['Big One'] = { vcpus: 1, memoryMiB: 512 }),
      [expect.stringMatching(/^kvm\.machineTypes\["Big One"\]: name must be/)],
    ],
    ['vcpus required', (c) => delete c.kvm.machineTypes.small.vcpus, ['kvm.machineTypes.small.vcpus: required']],
    [
      'vcpus >= 1',
      (c) => (c.kvm.machineTypes.small.vcpus = 0),
      ['kvm.machineTypes.small.vcpus: must be at least 1 (got 0)'],
    ],
    [
      'vcpus whole',
      (c) => (c.kvm.machineTypes.small.vcpus = 1.5),
      ['kvm.machineTypes.small.vcpus: must be a whole number (got 1.5)'],
    ],
    [
      'memory >= 128 MiB',
      (c) => (c.kvm.machineTypes.small.memoryMiB = 64),
      ['kvm.machineTypes.small.memoryMiB: must be at least 128 (got 64)'],
    ],
    [
      'memory required',
      (c) => delete c.kvm.machineTypes.medium.memoryMiB,
      ['kvm.machineTypes.medium.memoryMiB: required'],
    ],
    [
      'disk >= 1 GiB',
      (c) => (c.kvm.machineTypes.small.diskGiB = 0),
      ['kvm.machineTypes.small.diskGiB: must be at least 1 (got 0)'],
    ],
    ['image url required', (c) => delete c.kvm.images['debian-12'].url, ['kvm.images.debian-12.url: required']],
    [
      'image url scheme',
      (c) => (c.kvm.images['debian-12'].url = 'ftp://h/x.img'),
      ['kvm.images.debian-12.url: must be a URL with scheme https, http, file (got "ftp")'],
    ],
    [
      'image url not a URL',
      (c) => (c.kvm.images['debian-12'].url = 'debian.qcow2'),
      ['kvm.images.debian-12.url: must be a URL with scheme https, http, file'],
    ],
    ['sha256 required', (c) => delete c.kvm.images['debian-12'].sha256, ['kvm.images.debian-12.sha256: required']],
    [
      'sha256 length',
      (c) => (c.kvm.images['debian-12'].sha256 = 'abc'),
      ['kvm.images.debian-12.sha256: must be 64 hexadecimal characters'],
    ],
    [
      'sha256 hex',
      (c) => (c.kvm.images['debian-12'].sha256 = 'z'.repeat(64)),
      ['kvm.images.debian-12.sha256: must be 64 hexadecimal characters'],
    ],
    [
      'sha256 lowercase',
      (c) => (c.kvm.images['debian-12'].sha256 = 'A'.repeat(64)),
      ['kvm.images.debian-12.sha256: must be lowercase hexadecimal'],
    ],
    [
      'sha256 is text',
      (c) => (c.kvm.images['debian-12'].sha256 = 12345),
      ['kvm.images.debian-12.sha256: expected text, got number 12345 (put the value in quotes)'],
    ],
    [
      'disk format enum',
      (c) => (c.kvm.images['debian-12'].format = 'vmdk'),
      ['kvm.images.debian-12.format: must be one of qcow2, raw (got the text "vmdk")'],
    ],
    [
      'defaults.machineType exists',
      (c) => (c.kvm.defaults.machineType = 'huge'),
      ['kvm.defaults.machineType: no machine type named "huge" (known: small, medium)'],
    ],
    [
      'defaults.image exists',
      (c) => (c.kvm.defaults.image = 'ubuntu'),
      ['kvm.defaults.image: no image named "ubuntu" (known: debian-12)'],
    ],
    [
      'defaults.image with no images',
      (c) => {
        delete c.kvm.images;
      },
      ['kvm.defaults.image: no image named "debian-12" (none is defined)'],
    ],
    ['proxy port range', (c) => (c.kvm.proxy.port = 99999), ['kvm.proxy.port: must be at most 65535 (got 99999)']],
    ['vendorData is text', (c) => (c.kvm.vendorData = ['x']), ['kvm.vendorData: expected text, got a list']],
    [
      'vendorData size',
      (c) => (c.kvm.vendorData = `#cloud-config\n${'x'.repeat(300 * 1024)}`),
      ['kvm.vendorData: must be at most 256 KiB'],
    ],
    ['document is a map', () => undefined, []],
  ];

  it.each(cases.slice(0, -1))('%s', (_rule, edit, expected) => {
    expect(messages(mutate(edit))).toEqual(expected);
  });

  it('rejects a document that is not a map', () => {
    expect(messages(['type', 'kvm'])).toEqual(['expected a map of fields, got a list']);
    expect(messages('type: kvm')).toEqual([expect.stringMatching(/^expected a map of fields/)]);
  });

  it('reports every problem at once, in document order', () => {
    const input = mutate((c) => {
      c.kvm.hosts[1].name = 'local';
      c.kvm.hosts[0].sshPort = 1;
      c.kvm.images['debian-12'].sha256 = 'x';
      c.gcp = {};
    });
    expect(messages(input)).toEqual([
      'kvm.hosts[0].sshPort: not used when address is "local" (this machine is reached through its libvirt socket)',
      'kvm.hosts[1].name: duplicate host name "local" (also kvm.hosts[0])',
      'kvm.images.debian-12.sha256: must be 64 hexadecimal characters',
      'gcp: type is kvm but a gcp block is set',
    ]);
  });

  it('keeps the blocks of other providers as they are', () => {
    const result = validateProviderConfig({ type: 'gcp', gcp: { project: 'p', zones: ['a'] } });
    expect(result).toEqual({ ok: true, config: { type: 'gcp', gcp: { project: 'p', zones: ['a'] } } });
  });

  it('quotes keys whose dots would make the path unreadable (found by fuzzing)', () => {
    // A key "." came out as the path "." and a machine type "a." as "kvm.machineTypes.a.":
    // neither can be read back to the field. Dotted names (debian.12) stay bare.
    const c = mutate((cfg) => {
      cfg['.'] = 1;
      cfg.kvm.machineTypes['a.'] = { vcpus: 0, memoryMiB: 512 };
      cfg.kvm.machineTypes['debian.12'] = { vcpus: 0, memoryMiB: 512 };
    });
    expect(messages(c)).toEqual(
      expect.arrayContaining([
        '["."]: unknown field (known: type, kvm, gcp, kubernetes)',
        'kvm.machineTypes["a."].vcpus: must be at least 1 (got 0)',
        'kvm.machineTypes.debian.12.vcpus: must be at least 1 (got 0)',
      ]),
    );
  });

  it('says only that a value has the wrong type, even when it has a length (found by fuzzing)', () => {
    // zod 4 also ran the string's length check on { length: null }: "must be at least 1 (got [object Object])".
    const c = mutate((cfg) => ((cfg.kvm.hosts[1] as { address: unknown }).address = { length: null }));
    expect(messages(c)).toEqual(['kvm.hosts[1].address: expected text, got a map']);
  });

  it('accepts IPv4, IPv6 and hostnames as addresses', () => {
    for (const address of ['10.0.0.1', '2001:db8::1', 'edge-a.example.org', 'edge-a']) {
      const c = mutate((cfg) => (cfg.kvm.hosts[1].address = address));
      expect(messages(c), address).toEqual([]);
    }
  });

  it('refuses a long run of colons as an address at once, not after seconds of backtracking (found by fuzzing)', () => {
    // test/unit/fuzz/config-files.test.ts: the IPv6 pattern backtracked quadratically, so a
    // 10,000-colon address took 250 ms to refuse and a config-sized one would take hours.
    for (const address of [`${':'.repeat(100_000)}\u00e9`, `${':'.repeat(254)}`, `fe80::1%${'a'.repeat(300)}`]) {
      const started = performance.now();
      const c = mutate((cfg) => (cfg.kvm.hosts[1].address = address));
      expect(messages(c)).toEqual([
        'kvm.hosts[1].address: must be "local", a hostname or an IP address (user and port go in sshUser and sshPort)',
      ]);
      expect(performance.now() - started).toBeLessThan(100);
    }
    for (const address of ['fe80::1%eth0', '::1', '::ffff:192.0.2.1']) {
      expect(messages(mutate((cfg) => (cfg.kvm.hosts[1].address = address))), address).toEqual([]);
    }
  });
});
