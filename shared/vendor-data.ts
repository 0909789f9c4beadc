/**
 * The default vendor-data: cloud-config that installs and starts qemu-guest-agent, so that
 * the app can read a proxy's addresses and hostname from the agent. It needs the distro
 * mirrors on first boot; on an isolated network, discovery still works through DHCP leases
 * and ARP (see docs/config.md).
 */
export const DEFAULT_VENDOR_DATA = `#cloud-config
packages:
  - qemu-guest-agent
runcmd:
  - [systemctl, enable, --now, qemu-guest-agent]
`;
