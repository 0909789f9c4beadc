/**
 * Who this workstation's user is, as the metadata records it (`launchedBy`): the OS user
 * name and the host name, each reduced to the characters the metadata allows. It
 * identifies, it does not authenticate: no secret is in it.
 */
import { hostname, userInfo } from 'node:os';
import type { LaunchedBy } from '../../../../shared/fleet-meta.js';

function clean(text: string, allowed: RegExp, max: number, fallback: string): string {
  const out = [...text]
    .map((c) => (allowed.test(c) ? c : '-'))
    .join('')
    .slice(0, max);
  return out.replace(/^-+|-+$/g, '') || fallback;
}

/** This OS user on this workstation. */
export function workstationIdentity(): LaunchedBy {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // A uid without a passwd entry (some containers) has no name.
    user = process.env.USER ?? 'unknown';
  }
  return {
    user: clean(user, /[A-Za-z0-9._-]/, 64, 'unknown'),
    workstation: clean(hostname(), /[A-Za-z0-9.-]/, 253, 'unknown'),
  };
}
