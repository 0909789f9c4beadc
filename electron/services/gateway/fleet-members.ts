/**
 * The gateway's members, made from what the app already knows (issue 40): the fleet's
 * listing, the health monitor's last round and the credentials file. Nothing of its own:
 * a proxy is a member while it runs, is healthy or slow, has an address and credentials
 * here, and is not a replacement still waiting for its predecessor to go.
 */
import type { Duplex } from 'node:stream';
import type { FleetHealth, HealthState } from '../../../shared/health.js';
import type { ProxyCredentials } from '../../../shared/proxy.js';
import { proxyKey } from '../../../shared/proxy-key.js';
import type { ProxyRecord } from '../provider/kvm/context.js';
import type { GatewayMemberRoute } from './gateway-server.js';

/** Where the gateway reaches a host's guests from: that host's stream (its SSH connection), or undefined for a TCP connect from here. */
export type TunnelFor = (host: string) => ((address: string, port: number) => Promise<Duplex>) | undefined;

/** The address a member is reached at: the first IPv4 one, else the first. */
function addressOf(p: ProxyRecord): string | undefined {
  return (p.addresses.find((a) => a.family === 'ipv4') ?? p.addresses[0])?.address;
}

/**
 * Every proxy of the listing as a member, usable or not (the Gateway view lists them all,
 * saying why one is not used): `credentials` by proxy name (those not there make a member
 * that cannot be used), `health` the monitor's last report.
 */
export function membersOf(
  proxies: Iterable<ProxyRecord>,
  health: FleetHealth,
  credentials: ReadonlyMap<string, ProxyCredentials>,
  tunnelFor?: TunnelFor,
): GatewayMemberRoute[] {
  const states = healthStates(health);
  const out: GatewayMemberRoute[] = [];
  for (const p of proxies) {
    const key = proxyKey(p.host, p.id) as string;
    const address = addressOf(p);
    const creds = credentials.get(p.name);
    const open = address ? tunnelFor?.(p.host) : undefined;
    out.push({
      key,
      name: p.name,
      host: p.host,
      labels: p.labels ?? {},
      usable: unusableReason(p, states, credentials) === undefined,
      address: address ?? '',
      port: p.port,
      kind: p.kind,
      credentials: creds,
      tunnel: open && address ? () => open(address, p.port) : undefined,
    });
  }
  return out;
}

/** Each proxy's state in a health report, by its key: one lookup a proxy, not a search. */
export function healthStates(health: FleetHealth): ReadonlyMap<string, HealthState> {
  return new Map(health.proxies.map((h) => [proxyKey(h.host, h.domain) as string, h.state]));
}

/**
 * Why a proxy is not used as a member, in a word for the Gateway view (undefined: it is
 * used): the one rule {@link membersOf} applies too.
 */
export function unusableReason(
  p: ProxyRecord,
  states: ReadonlyMap<string, HealthState>,
  credentials: ReadonlyMap<string, ProxyCredentials>,
): string | undefined {
  if (p.state !== 'running') return p.state;
  if (p.replacing) return 'replacement';
  if (!addressOf(p)) return 'no address';
  if (!credentials.has(p.name)) return 'no credentials here';
  const state = states.get(proxyKey(p.host, p.id));
  if (!state) return 'not probed yet';
  return state === 'healthy' || state === 'slow' ? undefined : state;
}
