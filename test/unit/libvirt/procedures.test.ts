import { describe, expect, expectTypeOf, it } from 'vitest';
import type { LibvirtClient } from '../../../electron/libvirt/client.js';
import { decodeAll, encodeToBuffer } from '../../../electron/libvirt/codec.js';
import {
  type LibvirtApi,
  type ReplyOf,
  camelName,
  procedureName,
  procedures,
} from '../../../electron/libvirt/procedures.js';
import type { DomainRef } from '../../../electron/libvirt/types.js';

// The procedures of libvirt-rpc.md section 5, with their numbers.
const DOCUMENTED: ReadonlyArray<readonly [string, number]> = [
  ['CONNECT_OPEN', 1],
  ['CONNECT_CLOSE', 2],
  ['CONNECT_GET_VERSION', 4],
  ['NODE_GET_INFO', 6],
  ['DOMAIN_CREATE', 9],
  ['DOMAIN_DEFINE_XML', 11],
  ['DOMAIN_DESTROY', 12],
  ['DOMAIN_GET_XML_DESC', 14],
  ['DOMAIN_GET_INFO', 16],
  ['DOMAIN_LOOKUP_BY_NAME', 23],
  ['DOMAIN_LOOKUP_BY_UUID', 24],
  ['DOMAIN_SHUTDOWN', 33],
  ['NETWORK_LOOKUP_BY_NAME', 46],
  ['CONNECT_GET_HOSTNAME', 59],
  ['CONNECT_SUPPORTS_FEATURE', 60],
  ['AUTH_LIST', 66],
  ['AUTH_POLKIT', 70],
  ['STORAGE_POOL_REFRESH', 83],
  ['STORAGE_POOL_LOOKUP_BY_NAME', 84],
  ['STORAGE_POOL_GET_INFO', 87],
  ['STORAGE_VOL_CREATE_XML', 93],
  ['STORAGE_VOL_DELETE', 94],
  ['STORAGE_VOL_LOOKUP_BY_NAME', 95],
  ['STORAGE_VOL_GET_INFO', 98],
  ['STORAGE_VOL_GET_PATH', 100],
  ['NODE_GET_FREE_MEMORY', 102],
  ['CONNECT_GET_URI', 110],
  ['CONNECT_GET_LIB_VERSION', 157],
  ['DOMAIN_CREATE_WITH_FLAGS', 196],
  ['DOMAIN_OPEN_CONSOLE', 201],
  ['STORAGE_VOL_UPLOAD', 208],
  ['STORAGE_VOL_DOWNLOAD', 209],
  ['DOMAIN_GET_STATE', 212],
  ['DOMAIN_UNDEFINE_FLAGS', 231],
  ['DOMAIN_DESTROY_FLAGS', 234],
  ['DOMAIN_SHUTDOWN_FLAGS', 258],
  ['DOMAIN_SET_METADATA', 264],
  ['DOMAIN_GET_METADATA', 265],
  ['CONNECT_LIST_ALL_DOMAINS', 273],
  ['CONNECT_LIST_ALL_STORAGE_POOLS', 281],
  ['STORAGE_POOL_LIST_ALL_VOLUMES', 282],
  ['CONNECT_LIST_ALL_NETWORKS', 283],
  ['CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY', 316],
  ['CONNECT_DOMAIN_EVENT_CALLBACK_DEREGISTER_ANY', 317],
  ['DOMAIN_EVENT_CALLBACK_LIFECYCLE', 318],
  ['NETWORK_GET_DHCP_LEASES', 341],
  ['DOMAIN_DEFINE_XML_FLAGS', 350],
  ['DOMAIN_INTERFACE_ADDRESSES', 353],
];

describe('the procedure table', () => {
  it('has one row per number', () => {
    const numbers = Object.values(procedures).map((p) => p.proc);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(procedureName(344)).toBe('CONNECT_GET_ALL_DOMAIN_STATS');
  });

  it('holds every procedure of libvirt-rpc.md section 5 with the documented number', () => {
    for (const [name, proc] of DOCUMENTED) expect(procedures[name as keyof typeof procedures]?.proc, name).toBe(proc);
  });

  it('adds the fleet and capability procedures with libvirt’s numbers', () => {
    expect(procedures.CONNECT_GET_ALL_DOMAIN_STATS.proc).toBe(344);
    expect(procedures.CONNECT_GET_CAPABILITIES.proc).toBe(7);
    expect(procedures.CONNECT_GET_TYPE.proc).toBe(3);
    expect(procedures.CONNECT_GET_DOMAIN_CAPABILITIES.proc).toBe(342);
  });

  it('lays out CONNECT_GET_ALL_DOMAIN_STATS as remote_protocol.x does', () => {
    const dom: DomainRef = { name: 'a', uuid: Buffer.alloc(16, 0xab), id: -1 };
    const args = encodeToBuffer(procedures.CONNECT_GET_ALL_DOMAIN_STATS.args, { doms: [dom], stats: 1, flags: 2 });
    // doms<>: count 1, name "a" padded, uuid, id −1; then stats, flags.
    expect(args.toString('hex')).toBe(
      '00000001' + '00000001' + '61000000' + 'ab'.repeat(16) + 'ffffffff' + '00000001' + '00000002',
    );
    const reply = [{ dom, params: [{ field: 'state.state', value: { type: 1 as const, value: 5 } }] }];
    expect(
      decodeAll(
        procedures.CONNECT_GET_ALL_DOMAIN_STATS.reply,
        encodeToBuffer(procedures.CONNECT_GET_ALL_DOMAIN_STATS.reply, reply),
      ),
    ).toEqual(reply);
  });

  it('names api methods in camelCase', () => {
    expect(camelName('DOMAIN_GET_XML_DESC')).toBe('domainGetXmlDesc');
    expect(camelName('CONNECT_GET_URI')).toBe('connectGetUri');
  });

  it('types calls from the table', () => {
    type Call = LibvirtClient['call'];
    expectTypeOf<ReplyOf<'DOMAIN_GET_XML_DESC'>>().toEqualTypeOf<string>();
    expectTypeOf<ReplyOf<'CONNECT_GET_VERSION'>>().toEqualTypeOf<bigint>();
    expectTypeOf<ReplyOf<'CONNECT_LIST_ALL_DOMAINS'>>().toEqualTypeOf<{ domains: DomainRef[]; ret: number }>();
    expectTypeOf<Parameters<LibvirtApi['domainGetXmlDesc']>>().toEqualTypeOf<
      [args: { dom: DomainRef; flags: number }]
    >();
    expectTypeOf<Parameters<LibvirtApi['connectGetUri']>>().toEqualTypeOf<[]>();
    expectTypeOf<Call>().toBeFunction();
    // @ts-expect-error stream procedures are not plain calls
    expectTypeOf<LibvirtApi['storageVolUpload']>().toBeFunction();
  });
});
