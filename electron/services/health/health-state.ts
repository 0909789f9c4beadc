/** A proxy's health after one observation: pure, so the transitions are tested without a network. */
import type { HealthState, ProxyHealth } from '../../../shared/health.js';
import type { ProbeResult } from './proxy-probe.js';

/**
 * What one round learnt of a proxy: a probe's result; why it could not be probed
 * (`unknown`); or why it cannot be working whatever a probe would say (`failing`: a paused
 * or crashed domain, read from libvirt's state, so no probe is spent on it).
 */
export type Observation = { probe: ProbeResult } | { unknown: string } | { failing: string };

/** Who the health is of. */
export type HealthSubject = Pick<ProxyHealth, 'host' | 'domain' | 'name'>;

/**
 * The health after `seen` at `now`. `since` moves only when the state changes; the exit
 * address is kept across probes that did not read one, and flagged when a new one differs.
 */
export function nextHealth(
  subject: HealthSubject,
  prev: ProxyHealth | undefined,
  seen: Observation,
  now: number,
  slowMs: number,
): ProxyHealth {
  const state: HealthState =
    'unknown' in seen
      ? 'unknown'
      : 'failing' in seen || !seen.probe.ok
        ? 'failing'
        : seen.probe.latencyMs >= slowMs
          ? 'slow'
          : 'healthy';
  const out: ProxyHealth = { ...subject, state, since: prev?.state === state ? prev.since : now };
  if (prev?.exitAddress) out.exitAddress = prev.exitAddress;
  if ('unknown' in seen) {
    out.lastError = seen.unknown;
    if (prev?.checkedAt !== undefined) out.checkedAt = prev.checkedAt;
    return out;
  }
  if ('failing' in seen) {
    out.lastError = seen.failing;
    out.checkedAt = now;
    return out;
  }
  const r = seen.probe;
  out.checkedAt = now;
  if (r.status !== undefined) {
    out.status = r.status;
    out.latencyMs = r.latencyMs;
  }
  if (r.error) out.lastError = r.error;
  if (r.exitAddress) {
    if (prev?.exitAddress && prev.exitAddress !== r.exitAddress) out.exitChanged = true;
    out.exitAddress = r.exitAddress;
  }
  return out;
}
