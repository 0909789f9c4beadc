/**
 * `egress-desk hosts ssh-config NAME`: a host's effective SSH settings, like `ssh -G`, but
 * saying where each came from (the app's host entry, a config file and line, or OpenSSH's
 * default) and every warning, so a person can see why a connection goes where it goes.
 * Reads the config files only: nothing connects. The content is the app's "SSH settings"
 * (the same view, electron/services/hosts/ssh-settings-view.ts); this is its text form.
 */
import type { SshSettingsView } from '../../../shared/ssh-settings.js';

/** The text form: one setting a line, each with where it came from. */
export function formatSshSettings(v: SshSettingsView): string {
  const lines: string[] = [];
  const hostName = v.hostName.value;
  lines.push(`${v.name}: ssh://${v.endpoint}${v.address !== hostName ? ` (address "${v.address}")` : ''}`);
  lines.push(`  hostname       ${hostName}   (${v.hostName.origin})`);
  lines.push(`  port           ${v.port.value}   (${v.port.origin})`);
  lines.push(`  user           ${v.user.value}   (${v.user.origin})`);
  lines.push('  keys, in the order they are tried:');
  if (v.keys.length === 0) lines.push('    none');
  v.keys.forEach((k, i) =>
    lines.push(`    ${i + 1}. ${k.path}   (${k.origin}${k.written !== undefined ? `, written "${k.written}"` : ''})`),
  );
  lines.push(
    `  agent          ${v.agent ?? 'none'}${v.identitiesOnly ? '   (IdentitiesOnly: only keys listed above)' : ''}`,
  );
  if (v.jumps.length > 0)
    lines.push(
      `  via            ${v.jumps.join(' → ')}   (ProxyJump ${v.proxyJump?.value ?? ''}${v.proxyJump?.origin ? `, ${v.proxyJump.origin}` : ''})`,
    );
  else lines.push('  via            direct');
  if (v.proxyCommand !== undefined) lines.push(`  proxycommand   ${v.proxyCommand}   (not run by Egress Desk)`);
  lines.push(
    `  known_hosts    ${v.knownHostsFiles.join(' ') || 'none'}${v.knownHostsFiles.length ? '   (new keys go to the first)' : ''}`,
  );
  lines.push(`  global hosts   ${v.globalKnownHostsFiles.join(' ') || 'none'}`);
  lines.push(`  host key name  ${v.hostKeyName}${v.hashKnownHosts ? '   (HashKnownHosts)' : ''}`);
  if (v.connectTimeoutSeconds !== undefined) lines.push(`  connecttimeout ${v.connectTimeoutSeconds} s`);
  if (v.serverAlive)
    lines.push(
      `  serveralive    every ${v.serverAlive.intervalSeconds} s, ${v.serverAlive.countMax} unanswered allowed`,
    );
  if (v.warnings.length > 0) {
    lines.push('  warnings:');
    for (const w of v.warnings) lines.push(`    ${w}`);
  }
  return `${lines.join('\n')}\n`;
}
