import { describe, expect, it } from 'vitest';
import {
  ConnectionClosedError,
  ErrorCode,
  LibvirtError,
  isAlreadyExists,
  isAuthError,
  isConnectionClosed,
  isNotFound,
} from '../../../electron/libvirt/errors.js';
import { domainTypesFromCapabilities, formatVersion, getMetadataElement } from '../../../electron/libvirt/helpers.js';
import { procedures } from '../../../electron/libvirt/procedures.js';
import { formatUuid, parseUuid, typedParamsToRecord } from '../../../electron/libvirt/types.js';
import { clientAndDaemon } from './support/fake-daemon.js';

const err = (code: number, message = 'x') => LibvirtError.local(code, message);

describe('error helpers', () => {
  it.each([42, 43, 49, 50, 80])('isNotFound(code %i)', (code) => {
    expect(isNotFound(err(code))).toBe(true);
  });

  it('isNotFound is false for other codes and other errors', () => {
    expect(isNotFound(err(ErrorCode.OPERATION_INVALID))).toBe(false);
    expect(isNotFound(new Error('Domain not found'))).toBe(false);
  });

  it('isAlreadyExists covers the *_EXIST codes and "already exists" define failures', () => {
    expect(isAlreadyExists(err(ErrorCode.STORAGE_VOL_EXIST))).toBe(true);
    expect(isAlreadyExists(err(ErrorCode.OPERATION_FAILED, "domain 'x' already exists with uuid 1234"))).toBe(true);
    expect(isAlreadyExists(err(ErrorCode.OPERATION_FAILED, 'something else'))).toBe(false);
  });

  it('isAuthError covers auth failures and unauthenticated calls', () => {
    expect(isAuthError(err(ErrorCode.AUTH_FAILED))).toBe(true);
    expect(isAuthError(err(ErrorCode.ACCESS_DENIED))).toBe(true);
    expect(isAuthError(err(ErrorCode.RPC, 'authentication required'))).toBe(true);
    expect(isAuthError(err(ErrorCode.RPC, 'unknown procedure: 9'))).toBe(false);
  });

  it('isConnectionClosed recognises ConnectionClosedError and keeps the cause', () => {
    const cause = new Error('ECONNRESET');
    const closed = new ConnectionClosedError('gone', { cause });
    expect(isConnectionClosed(closed)).toBe(true);
    expect(closed.cause).toBe(cause);
    expect(isConnectionClosed(cause)).toBe(false);
  });
});

describe('helpers', () => {
  it('formats packed versions as major.minor.micro', () => {
    expect(formatVersion(9_000_000n)).toBe('9.0.0');
    expect(formatVersion(7_002_022n)).toBe('7.2.22');
    expect(formatVersion(11_007_000)).toBe('11.7.0');
  });

  it('formats and parses UUIDs', () => {
    const text = '6695eb01-f6a4-8304-79aa-97f2502e193f';
    expect(formatUuid(parseUuid(text))).toBe(text);
    expect(() => parseUuid('nope')).toThrow(TypeError);
  });

  it('flattens typed params', () => {
    expect(
      typedParamsToRecord([
        { field: 'state.state', value: { type: 1, value: 1 } },
        { field: 'balloon.current', value: { type: 4, value: 65536n } },
      ]),
    ).toEqual({ 'state.state': 1, 'balloon.current': 65536n });
  });

  it('reads the domain types for an arch from capabilities XML', () => {
    const caps = `<capabilities><host/>
      <guest><os_type>hvm</os_type><arch name='i686'><domain type='qemu'/></arch></guest>
      <guest><os_type>hvm</os_type><arch name='x86_64'><emulator>/usr/bin/qemu-system-x86_64</emulator>
        <domain type='qemu'/><domain type='kvm'/></arch></guest></capabilities>`;
    expect(domainTypesFromCapabilities(caps)).toEqual(['qemu', 'kvm']);
    expect(domainTypesFromCapabilities(caps, 'aarch64')).toEqual([]);
  });

  it('getMetadataElement returns null for a missing element (code 80) and rethrows others', async () => {
    const { client, daemon } = clientAndDaemon();
    const dom = { name: 'vm', uuid: Buffer.alloc(16), id: -1 };
    let n = 0;
    daemon.handle('DOMAIN_GET_METADATA', (c, d) => {
      n++;
      if (n === 1) d.replyError(c, ErrorCode.NO_DOMAIN_METADATA, 'metadata not found');
      else if (n === 2) d.replyWith(c, procedures.DOMAIN_GET_METADATA.reply, '<instance/>');
      else d.replyError(c, ErrorCode.NO_DOMAIN, 'no domain');
    });
    await expect(getMetadataElement(client, dom, 'urn:egress-proxies:kvm:v1')).resolves.toBeNull();
    await expect(getMetadataElement(client, dom, 'urn:egress-proxies:kvm:v1')).resolves.toBe('<instance/>');
    await expect(getMetadataElement(client, dom, 'urn:egress-proxies:kvm:v1')).rejects.toMatchObject({
      code: ErrorCode.NO_DOMAIN,
    });
    client.destroy();
  });
});
