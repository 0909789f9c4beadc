/**
 * The hosts area of the contract (`hosts:*`): statuses with each host's facts, host-key
 * trust, passphrases, SSH settings, and host edits through the one config write path.
 */
import {
  type AppSettings,
  type HostImageTransfer,
  imageTransferOf,
  withImageTransfer,
} from '../../../shared/app-settings.js';
import type { HostLoad, HostStatus } from '../../../shared/hosts.js';
import type { AreaService, ChannelInput, ChannelOutput } from '../../../shared/ipc.js';
import { statusWithInfo } from '../hosts/host-info.js';
import { addHost, proxiesOn, removalMessage, removeHost, updateHost } from '../hosts/host-edits.js';
import { readSettingsFile, updateSettingsFile } from '../settings/settings-file.js';
import type { ConfigWrites } from './config-writes.js';
import { UnknownEntryError } from './errors.js';
import type { FleetAssembly } from './fleet-assembly.js';

export class HostsArea implements AreaService<'hosts'> {
  constructor(
    private readonly backend: () => Promise<FleetAssembly>,
    private readonly writes: ConfigWrites,
    /** The app's settings.json (the image transfer per host); absent: those channels refuse. */
    private readonly settingsFile?: string,
  ) {}

  /** The host's image transfer and what the last one did, from settings.json (read afresh: the CLI may have changed it). */
  async imageTransfer(input: ChannelInput<'hosts:imageTransfer'>): Promise<HostImageTransfer> {
    const file = await this.settingsOf(input.name);
    return transferView(input.name, file, await readSettingsFile(file));
  }

  /** Sets the host's image transfer in settings.json; the next launch there reads it. */
  async setImageTransfer(input: ChannelInput<'hosts:setImageTransfer'>): Promise<HostImageTransfer> {
    const file = await this.settingsOf(input.name);
    return transferView(
      input.name,
      file,
      await updateSettingsFile(file, (s) => withImageTransfer(s, input.name, input.imageTransfer)),
    );
  }

  private async settingsOf(host: string): Promise<string> {
    knownHost(await this.backend(), host);
    if (!this.settingsFile)
      throw new Error('this front end keeps no settings file: use `egress-desk hosts image-transfer`');
    return this.settingsFile;
  }

  async list(): Promise<HostStatus[]> {
    const backend = await this.backend();
    return Promise.all(backend.config.hosts.map((h) => statusWithInfo(backend.hosts, h.name)));
  }

  /** The host's load now (the Hosts view asks while it shows: the figures refresh instead of staying as they were at connect). */
  async load(input: ChannelInput<'hosts:load'>): Promise<HostLoad> {
    const backend = await this.backend();
    knownHost(backend, input.name);
    return backend.hosts.load(input.name);
  }

  /** The host's effective SSH settings (ssh_config read afresh; nothing connects). */
  async sshSettings(input: ChannelInput<'hosts:sshSettings'>): Promise<ChannelOutput<'hosts:sshSettings'>> {
    const backend = await this.backend();
    knownHost(backend, input.name);
    return backend.hosts.sshSettings(input.name);
  }

  async trust(input: ChannelInput<'hosts:trust'>): Promise<HostStatus> {
    const backend = await this.backend();
    knownHost(backend, input.host);
    await backend.hosts.trust(input.host, input.fingerprint);
    return statusWithInfo(backend.hosts, input.host);
  }

  async add(input: ChannelInput<'hosts:add'>): Promise<ChannelOutput<'hosts:add'>> {
    const { path } = await this.writes.edit((c) => addHost(c, input.host));
    return { path, hosts: await this.reopened() };
  }

  async update(input: ChannelInput<'hosts:update'>): Promise<ChannelOutput<'hosts:update'>> {
    const renaming = input.host.name !== input.name;
    const proxies = renaming ? await this.proxiesOnHost(input.name) : undefined;
    const { path } = await this.writes.edit((c) => updateHost(c, input.name, input.host, proxies));
    return { path, hosts: await this.reopened() };
  }

  async remove(input: ChannelInput<'hosts:remove'>): Promise<ChannelOutput<'hosts:remove'>> {
    const proxies = await this.proxiesOnHost(input.name);
    const { path } = await this.writes.edit((c) => removeHost(c, input.name));
    return {
      path,
      hosts: await this.reopened(),
      removed: input.name,
      proxies: proxies ?? null,
      message: removalMessage(input.name, proxies),
    };
  }

  async unlock(input: ChannelInput<'hosts:unlock'>): Promise<HostStatus> {
    const backend = await this.backend();
    knownHost(backend, input.host);
    await backend.hosts.unlock(input.host, input.passphrase, input.remember);
    // Still asking (a wrong passphrase): answer that as it is; fetching facts would only connect again and lose the reason.
    const status = backend.hosts.status(input.host);
    return status.state === 'connected' ? statusWithInfo(backend.hosts, input.host) : status;
  }

  /** Proxies on one host (undefined: it cannot be listed, or is not in the config). */
  private async proxiesOnHost(name: string): Promise<number | undefined> {
    const backend = await this.backend();
    knownHost(backend, name);
    return proxiesOn(await backend.provider.list(), name);
  }

  /** After a host edit: the new backend's statuses, each host connecting in the background (host:status follows). */
  private async reopened(): Promise<HostStatus[]> {
    const backend = await this.backend();
    for (const h of backend.config.hosts) void statusWithInfo(backend.hosts, h.name);
    return backend.hosts.statuses();
  }
}

function transferView(host: string, file: string, settings: AppSettings): HostImageTransfer {
  const last = settings.hosts[host]?.lastTransfer;
  return { host, imageTransfer: imageTransferOf(settings, host), file, ...(last ? { last } : {}) };
}

function knownHost(backend: FleetAssembly, name: string): void {
  if (!backend.config.hosts.some((h) => h.name === name)) {
    throw new UnknownEntryError(
      `no host named ${JSON.stringify(name)} (known: ${backend.config.hosts.map((h) => h.name).join(', ')})`,
    );
  }
}
