/**
 * The shapes of ssh_config resolution: what goes in (the app's host fields, the files, the
 * local user) and what comes out (a host's effective settings, with where each came from
 * and every warning). Kept apart so that the parser, the resolver and their callers share
 * them without import cycles.
 */

/** A host as the app config names it; its fields act like ssh's command-line options. */
export interface SshTarget {
  /** An ssh_config alias, a host name or an address. */
  address: string;
  /** Like `ssh -l`: wins over ssh_config's User, and `Match user` sees it. */
  sshUser?: string;
  /** Like `ssh -p`: wins over ssh_config's Port. */
  sshPort?: number;
  /** Like `ssh -i`: tried first, then ssh_config's IdentityFile list. `~` is expanded. */
  identityFile?: string;
}

/** One config file's path and text. */
export interface SshConfigFile {
  path: string;
  text: string;
}

/** The config texts to resolve against. */
export interface SshConfigSources {
  /** ~/.ssh/config. */
  user?: SshConfigFile;
  /** /etc/ssh/ssh_config. */
  system?: SshConfigFile;
  /** For each Include pattern (absolute, see `includePattern`), the files it names, in order. */
  includes?: ReadonlyMap<string, readonly SshConfigFile[]>;
}

/** Facts about the local user that resolution needs. */
export interface SshLocalContext {
  /** `~` and `%d` in paths. OpenSSH takes it from the passwd entry; the app passes $HOME (docs/config.md says why). */
  homeDir: string;
  localUser: string;
  /** For SSH_AUTH_SOCK, `${VAR}` in paths and `~` in Include (glob(3) takes that one from $HOME). */
  env?: Readonly<Record<string, string | undefined>>;
  uid?: number;
  /** TCP service names for `Port ssh` (OpenSSH asks getservbyname; the loader reads /etc/services). */
  services?: ReadonlyMap<string, number>;
  /** This machine's name, for %l, %L and %C. */
  localHostName?: string;
  /** known_hosts files where ssh_config names none. Default ~/.ssh/known_hosts, ~/.ssh/known_hosts2. */
  userKnownHostsFiles?: readonly string[];
  /** System known_hosts files where ssh_config names none. Default /etc/ssh/ssh_known_hosts{,2}. */
  globalKnownHostsFiles?: readonly string[];
}

/** Where the identity files came from: decides whether a missing one is an error. */
export type IdentitySource = 'explicit' | 'ssh_config' | 'default';

/** Where one setting was obtained: a config file and line, the app's host entry, or OpenSSH's default. */
export interface SettingOrigin {
  kind: 'app' | 'ssh_config' | 'default';
  file?: string;
  line?: number;
}

/** One identity file, in the order it is tried. */
export interface IdentityFileSetting {
  /** Expanded, absolute. */
  path: string;
  /** As written, before `~`, tokens and `${VAR}`. */
  written: string;
  origin: SettingOrigin;
}

/** Something the person should know about how a host was resolved: never dropped, shown wherever the host is. */
export interface SshConfigWarning {
  file?: string;
  line?: number;
  message: string;
}

/** A host's effective SSH settings. */
export interface SshHostSettings {
  /** The name as given (the app's `address`). */
  alias: string;
  /** Where to connect: ssh_config's HostName (tokens expanded; lower case unless an address), else the alias. */
  hostName: string;
  port: number;
  user: string;
  /** Absolute paths, in the order to try; missing files are skipped unless they came from the app's host entry. */
  identityFiles: string[];
  /** `explicit` when the app's host entry names one (it comes first), else where the list came from. */
  identitySource: IdentitySource;
  /** The same files with what was written and where. */
  identities: IdentityFileSetting[];
  /** IdentitiesOnly: offer only agent keys that match an identity file. */
  identitiesOnly: boolean;
  /** The agent's socket (IdentityAgent, else SSH_AUTH_SOCK); undefined = no agent. */
  agentSocket: string | undefined;
  /** The hop to tunnel through (ProxyJump's last host, itself reached through the ones before it). */
  jump: SshHostSettings | undefined;
  /** ProxyJump as obtained (`a,ops@b:2022`), for display. */
  proxyJump: string | undefined;
  /** Set when ssh_config uses ProxyCommand, which this transport does not run. */
  proxyCommand: string | undefined;
  /** Read for host keys; the first is where a newly trusted key is written. */
  userKnownHostsFiles: string[];
  /** Read for host keys, never written. */
  globalKnownHostsFiles: string[];
  /** The name to look host keys up by: HostKeyAlias (lower case), else HostName. */
  hostKeyName: string;
  /** The port of that lookup: the real port, or 22 under HostKeyAlias (OpenSSH uses the alias bare, never `[alias]:port`). */
  hostKeyPort: number;
  hashKnownHosts: boolean;
  connectTimeoutMs: number | undefined;
  keepaliveIntervalMs: number | undefined;
  keepaliveCountMax: number | undefined;
  /** Where the connection-deciding settings came from. */
  origins: { hostName: SettingOrigin; port: SettingOrigin; user: SettingOrigin; proxyJump?: SettingOrigin };
  /** Everything resolution could not do as OpenSSH would (an unrun `Match exec`, DNS canonicalization), with file and line. */
  warnings: SshConfigWarning[];
}
