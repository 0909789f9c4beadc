/**
 * `egress-desk hosts ssh-config NAME`: a host's effective SSH settings, like `ssh -G`, but
 * saying where each came from (the app's host entry, a config file and line, or OpenSSH's
 * default) and every warning, so a person can see why a connection goes where it goes.
 * Reads the config files only: nothing connects.
 */
import type { SettingOrigin, SshHostSettings } from '../../transport/index.js';

function origin(o: SettingOrigin, home: string): string {
  if (o.kind === 'app') return "the app's host entry";
  if (o.kind === 'default') return "OpenSSH's default";
  return `${tilde(o.file ?? '', home)} line ${o.line}`;
}

function tilde(path: string, home: string): string {
  return home !== '' && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

function endpoint(s: SshHostSettings): string {
  const host = s.hostName.includes(':') ? `[${s.hostName}]` : s.hostName;
  return `${s.user}@${host}:${s.port}`;
}

/** The text form: one setting a line, each with where it came from. */
export function formatSshSettings(name: string, s: SshHostSettings, home: string): string {
  const lines: string[] = [];
  lines.push(`${name}: ssh://${endpoint(s)}${s.alias !== s.hostName ? ` (address "${s.alias}")` : ''}`);
  lines.push(`  hostname       ${s.hostName}   (${origin(s.origins.hostName, home)})`);
  lines.push(`  port           ${s.port}   (${origin(s.origins.port, home)})`);
  lines.push(`  user           ${s.user}   (${origin(s.origins.user, home)})`);
  lines.push('  keys, in the order they are tried:');
  if (s.identities.length === 0) lines.push('    none');
  s.identities.forEach((k, i) => {
    // What was written matters when tokens or variables made the path.
    const written = /[%$]/.test(k.written) ? `, written "${k.written}"` : '';
    lines.push(`    ${i + 1}. ${tilde(k.path, home)}   (${origin(k.origin, home)}${written})`);
  });
  lines.push(`  agent          ${s.agentSocket ?? 'none'}${s.identitiesOnly ? '   (IdentitiesOnly: only keys listed above)' : ''}`);
  const chain: string[] = [];
  for (let hop = s.jump; hop; hop = hop.jump) chain.unshift(endpoint(hop));
  if (chain.length > 0) lines.push(`  via            ${chain.join(' → ')}   (ProxyJump ${s.proxyJump ?? ''}${s.origins.proxyJump ? `, ${origin(s.origins.proxyJump, home)}` : ''})`);
  else lines.push('  via            direct');
  if (s.proxyCommand !== undefined) lines.push(`  proxycommand   ${s.proxyCommand}   (not run by Egress Desk)`);
  lines.push(`  known_hosts    ${s.userKnownHostsFiles.map((f) => tilde(f, home)).join(' ') || 'none'}${s.userKnownHostsFiles.length ? '   (new keys go to the first)' : ''}`);
  lines.push(`  global hosts   ${s.globalKnownHostsFiles.join(' ') || 'none'}`);
  lines.push(`  host key name  ${s.hostKeyPort === 22 ? s.hostKeyName : `[${s.hostKeyName}]:${s.hostKeyPort}`}${s.hashKnownHosts ? '   (HashKnownHosts)' : ''}`);
  if (s.connectTimeoutMs !== undefined) lines.push(`  connecttimeout ${s.connectTimeoutMs / 1000} s`);
  if (s.keepaliveIntervalMs !== undefined) lines.push(`  serveralive    every ${s.keepaliveIntervalMs / 1000} s, ${s.keepaliveCountMax ?? 3} unanswered allowed`);
  if (s.warnings.length > 0) {
    lines.push('  warnings:');
    for (const w of s.warnings) lines.push(`    ${w.file ? `${tilde(w.file, home)} line ${w.line}: ` : ''}${w.message}`);
  }
  return `${lines.join('\n')}\n`;
}
