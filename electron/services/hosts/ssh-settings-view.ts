/**
 * The one builder of a host's "SSH settings" as a person reads them, shared by the CLI
 * (`hosts ssh-config`, `hosts status`) and the app (`hosts:sshSettings`, host status
 * warnings): the resolver's settings with origins and warnings put into words.
 */
import type { SshSettingsView } from '../../../shared/ssh-settings.js';
import type { SettingOrigin, SshConfigWarning, SshHostSettings } from '../../transport/index.js';
import { bracketHost } from '../../../shared/net.js';

/** `path` with the home directory shown as `~`. */
export function tildePath(path: string, home: string): string {
  return home !== '' && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** Where a setting came from, in words. */
export function describeOrigin(o: SettingOrigin, home: string): string {
  if (o.kind === 'app') return "the app's host entry";
  if (o.kind === 'default') return "OpenSSH's default";
  return `${tildePath(o.file ?? '', home)} line ${o.line}`;
}

/** A warning as one line: `~/.ssh/config line 9: Match exec "…" was not run …`. */
export function formatSshWarning(w: SshConfigWarning, home: string): string {
  return `${w.file ? `${tildePath(w.file, home)} line ${w.line}: ` : ''}${w.message}`;
}

function endpoint(s: SshHostSettings): string {
  const host = bracketHost(s.hostName);
  return `${s.user}@${host}:${s.port}`;
}

/** The view of `settings` for the host `name`, paths under `home` shown as `~`. */
export function sshSettingsView(name: string, s: SshHostSettings, home: string): SshSettingsView {
  const jumps: string[] = [];
  for (let hop = s.jump; hop; hop = hop.jump) jumps.unshift(endpoint(hop));
  return {
    name,
    address: s.alias,
    endpoint: endpoint(s),
    hostName: { value: s.hostName, origin: describeOrigin(s.origins.hostName, home) },
    port: { value: String(s.port), origin: describeOrigin(s.origins.port, home) },
    user: { value: s.user, origin: describeOrigin(s.origins.user, home) },
    // What was written matters when tokens or variables made the path.
    keys: s.identities.map((k) => ({
      path: tildePath(k.path, home),
      origin: describeOrigin(k.origin, home),
      ...(/[%$]/.test(k.written) ? { written: k.written } : {}),
    })),
    agent: s.agentSocket ?? null,
    identitiesOnly: s.identitiesOnly,
    jumps,
    ...(s.proxyJump !== undefined && jumps.length > 0
      ? {
          proxyJump: {
            value: s.proxyJump,
            origin: s.origins.proxyJump ? describeOrigin(s.origins.proxyJump, home) : '',
          },
        }
      : {}),
    ...(s.proxyCommand !== undefined ? { proxyCommand: s.proxyCommand } : {}),
    knownHostsFiles: s.userKnownHostsFiles.map((f) => tildePath(f, home)),
    globalKnownHostsFiles: s.globalKnownHostsFiles,
    hostKeyName: s.hostKeyPort === 22 ? s.hostKeyName : `[${s.hostKeyName}]:${s.hostKeyPort}`,
    hashKnownHosts: s.hashKnownHosts,
    ...(s.connectTimeoutMs !== undefined ? { connectTimeoutSeconds: s.connectTimeoutMs / 1000 } : {}),
    ...(s.keepaliveIntervalMs !== undefined
      ? { serverAlive: { intervalSeconds: s.keepaliveIntervalMs / 1000, countMax: s.keepaliveCountMax ?? 3 } }
      : {}),
    warnings: s.warnings.map((w) => formatSshWarning(w, home)),
  };
}
