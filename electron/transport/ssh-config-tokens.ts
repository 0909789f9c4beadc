/**
 * ssh_config's `%` tokens, `${VAR}` and `~`, expanded as OpenSSH 9.2 expands them
 * (misc.c `percent_expand`/`dollar_expand`, `tilde_expand_filename`), with OpenSSH's rule
 * that an unknown token or an unset variable is an error, never a literal: a key path
 * silently pointing at `id_%l` is what this module exists to prevent.
 */
import { createHash } from 'node:crypto';
import { SshConfigError } from './ssh-errors.js';

/** The values of the tokens OpenSSH offers in paths (ssh_config(5) TOKENS). */
export interface TokenValues extends Record<string, string> {
  /** %C: SHA-1 of %l%h%p%r, hex. */
  C: string;
  /** %L: this machine's name up to the first dot. */
  L: string;
  /** %l: this machine's name. */
  l: string;
  /** %d: the local user's home. */
  d: string;
  /** %h: the remote host name (HostName, lower case). */
  h: string;
  /** %i: the local user's uid. */
  i: string;
  /** %j: the last ProxyJump hop's host, or empty (OpenSSH 9.6+; 9.2 refuses %j). */
  j: string;
  /** %k: HostKeyAlias, else the alias as given. */
  k: string;
  /** %n: the alias as given. */
  n: string;
  /** %p: the port. */
  p: string;
  /** %r: the remote user. */
  r: string;
  /** %u: the local user's name. */
  u: string;
}

/** %C, as OpenSSH's `ssh_connection_hash` computes it. */
export function connectionHash(localHost: string, host: string, port: string, user: string): string {
  return createHash('sha1')
    .update(localHost + host + port + user)
    .digest('hex');
}

/**
 * Expands `%x` for the tokens given (and `%%`). `what` names the setting for the error
 * OpenSSH would stop on: an unknown token, or a `%` at the end.
 */
export function percentExpand(value: string, tokens: Readonly<Record<string, string>>, what: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch !== '%') {
      out += ch;
      continue;
    }
    const key = value[++i];
    if (key === '%') out += '%';
    else if (key === undefined)
      throw new SshConfigError(`${what} "${value}": a % at the end (write %% for a percent sign)`);
    else if (Object.prototype.hasOwnProperty.call(tokens, key)) out += tokens[key];
    else
      throw new SshConfigError(
        `${what} "${value}": unknown token %${key} (as OpenSSH says: "percent_expand: unknown key %${key}")`,
      );
  }
  return out;
}

/** `${VAR}` from the environment; an unset or empty one is an error, as for OpenSSH. */
export function dollarExpand(value: string, env: Readonly<Record<string, string | undefined>>, what: string): string {
  return value.replace(/\$\{([^}]*)\}/g, (_whole, name: string) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new SshConfigError(`${what} "${value}": \${${name}} is not a variable name`);
    const v = env[name];
    if (v === undefined || v === '')
      throw new SshConfigError(`${what} "${value}": the environment variable \${${name}} has no value`);
    return v;
  });
}

/** A leading `~` or `~/`: the local user's home (`~user` is left as written: no passwd lookups for other users). */
export function tildeExpand(value: string, homeDir: string): string {
  if (value === '~') return homeDir;
  if (value.startsWith('~/')) return homeDir + value.slice(1);
  return value;
}

/** A path setting as ssh expands IdentityFile, UserKnownHostsFile, IdentityAgent: `~`, then tokens and `${VAR}`. */
export function expandPath(
  value: string,
  tokens: Readonly<Record<string, string>>,
  homeDir: string,
  env: Readonly<Record<string, string | undefined>>,
  what: string,
): string {
  return dollarExpand(percentExpand(tildeExpand(value, homeDir), tokens, what), env, what);
}
