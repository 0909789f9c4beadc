/**
 * A host's effective SSH settings as a person reads them: what `egress-desk hosts ssh-config`
 * prints and the Hosts view's "SSH settings" shows, built by one function
 * (electron/services/hosts/ssh-settings-view.ts) so the two never disagree. Each value says
 * where it came from: the app's host entry, a config file and line, or OpenSSH's default.
 */
import { z } from 'zod';

/** One setting and where it came from (`the app's host entry`, `~/.ssh/config line 7`, `OpenSSH's default`). */
export const SshSettingValueSchema = z.object({ value: z.string(), origin: z.string() });

export const SshSettingsViewSchema = z.object({
  /** The host's name in the app config. */
  name: z.string(),
  /** The host entry's `address`: an ssh_config alias, a host name or an address. */
  address: z.string(),
  /** Where it connects: `user@host:port`. */
  endpoint: z.string(),
  hostName: SshSettingValueSchema,
  port: SshSettingValueSchema,
  user: SshSettingValueSchema,
  /** Identity files in the order they are tried (home shown as `~`); `written` when tokens or variables made the path. */
  keys: z.array(z.object({ path: z.string(), origin: z.string(), written: z.string().optional() })),
  /** The agent's socket, or null for none. */
  agent: z.string().nullable(),
  /** IdentitiesOnly: only the keys listed are offered. */
  identitiesOnly: z.boolean(),
  /** The jump hosts, first hop first (`user@host:port`); empty when it connects directly. */
  jumps: z.array(z.string()),
  /** ProxyJump as obtained and where it came from, when there is one. */
  proxyJump: SshSettingValueSchema.optional(),
  /** ProxyCommand, which Egress Desk does not run. */
  proxyCommand: z.string().optional(),
  /** Read for host keys; the first receives newly trusted keys. */
  knownHostsFiles: z.array(z.string()),
  globalKnownHostsFiles: z.array(z.string()),
  /** The name host keys are looked up by (`[name]:port` off port 22). */
  hostKeyName: z.string(),
  hashKnownHosts: z.boolean(),
  connectTimeoutSeconds: z.number().optional(),
  serverAlive: z.object({ intervalSeconds: z.number(), countMax: z.number() }).optional(),
  /** Everything not done as OpenSSH would, each as `file line N: message`. */
  warnings: z.array(z.string()),
});
export type SshSettingsView = z.infer<typeof SshSettingsViewSchema>;
