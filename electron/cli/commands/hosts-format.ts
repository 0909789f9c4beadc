/** Plain-text rendering of host statuses for the terminal. */
import { formatBytes } from '../../../shared/bytes.js';
import type { HostStatus } from '../../../shared/hosts.js';

export function formatHostStatus(s: HostStatus, sameAs?: string): string {
  const lines = [`${s.name}  ${s.via}  ${s.state}`];
  if (sameAs)
    lines.push(`  same hypervisor as ${sameAs}: its proxies are listed once, each under the entry that launched it`);
  if (s.message) lines.push(`  ${s.message}`);
  if (s.fingerprint) lines.push(`  fingerprint  ${s.fingerprint}`);
  // ssh_config warnings (an unrun Match exec…) explain where a connection went: never dropped.
  for (const w of s.warnings ?? []) lines.push(`  warning      ${w}`);
  const info = s.info;
  if (info) {
    const row = (label: string, value: string) => lines.push(`  ${label.padEnd(12)} ${value}`);
    row('hostname', info.hostname);
    row('libvirt', info.libvirtVersion);
    row(
      'hypervisor',
      `${info.hypervisor} ${info.hypervisorVersion}${info.kvm ? ' (KVM available)' : ' (no KVM: guests run under TCG)'}`,
    );
    row('cpu', `${info.cpus} × ${info.cpuModel}`);
    row('memory', `${formatBytes(info.memoryBytes)}, ${formatBytes(info.freeMemoryBytes)} free`);
    row(
      'pools',
      info.pools.length
        ? info.pools
            .map(
              (p) =>
                `${p.name}${p.active ? '' : ' (inactive)'}: ${formatBytes(p.availableBytes)} of ${formatBytes(p.capacityBytes)} available`,
            )
            .join('\n' + ' '.repeat(15))
        : 'none',
    );
    row(
      'networks',
      info.networks.length ? info.networks.map((n) => `${n.name}${n.active ? '' : ' (inactive)'}`).join(', ') : 'none',
    );
    row('domains', String(info.domainCount));
  }
  return `${lines.join('\n')}\n`;
}
