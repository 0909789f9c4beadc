/**
 * The default vendor-data: cloud-config that installs qemu-guest-agent, so that the app can
 * read a proxy's addresses and hostname from the agent. It needs the distro mirrors on
 * first boot; on an isolated network, discovery still works through DHCP leases and ARP
 * (see docs/config.md).
 *
 * It has no `runcmd`: the proxy's user-data has one, and cloud-init's merge keeps
 * user-data's key over vendor-data's, so a vendor `runcmd` would never run. The user-data
 * starts the agent instead, whichever vendor-data installed it.
 */
export const DEFAULT_VENDOR_DATA = `#cloud-config
# The proxy's user-data starts the agent (a runcmd here would be replaced by user-data's).
packages:
  - qemu-guest-agent
`;
