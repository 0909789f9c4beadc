/**
 * What a fleet listing read of each domain last time (its metadata element, or its whole
 * XML when it runs), kept per connection for as long as the daemon's events say it has not
 * changed. The app re-lists its fleet every minute to catch what no event reported; with
 * 1,000 proxies that was 1,000 DOMAIN_GET_METADATA (or XML) calls a minute for domains
 * that almost never change, the largest item of an idle backend's CPU (bench (i)).
 *
 * The subscriptions are made by the first listing, beside its stats call (three small calls
 * on a connection that has none yet). An entry is dropped on any lifecycle event of its domain (defined again, started,
 * stopped, undefined…) and on any metadata change (DOMAIN_SET_METADATA by any client, live
 * or in the definition: libvirt sends METADATA_CHANGE for both). Nothing is kept before
 * both subscriptions are confirmed, nor from a read that an event overtook, and nothing
 * once the connection is gone. What no event reports (a NIC hot-plugged into a running
 * domain by another tool) is read again when the entry is older than {@link
 * FLEET_READ_MAX_AGE_MS}.
 */

/** How long an entry is trusted without an event (a NIC hot-plug has none this cache listens to). */
export const FLEET_READ_MAX_AGE_MS = 10 * 60_000;

/** Subscribes to the changes that make an entry stale; resolves once the daemon confirmed, rejects if it cannot. */
export type ChangeSource = (onChange: (uuid: string) => void) => Promise<void>;

/** What was read: `xml`, or `element <namespace URI>`. */
type Kind = string;

interface Entry {
  kind: Kind;
  value: string | null;
  at: number;
}

export class FleetReadCache {
  private state: 'off' | 'starting' | 'on' | 'failed' = 'off';
  private readonly entries = new Map<string, Entry>();
  /** Counts changes; a read keeps its answer only when no change of its domain came after it began. */
  private seq = 0;
  private readonly changedAt = new Map<string, number>();
  private inFlight = 0;
  private starting: Promise<void> | undefined;

  constructor(
    private readonly changes: ChangeSource,
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs = FLEET_READ_MAX_AGE_MS,
  ) {}

  /** True once reads are kept (both subscriptions confirmed, connection open). */
  get active(): boolean {
    return this.state === 'on';
  }

  /**
   * Starts the subscriptions (once) and resolves when they are confirmed or refused, never
   * rejecting. A listing awaits it beside its stats call, so that even its first reads are
   * kept: the app's first re-listing then reads nothing that did not change.
   */
  ready(): Promise<void> {
    this.starting ??= this.start();
    return this.starting;
  }

  /**
   * The domain's `kind` of answer: kept from an earlier read when nothing changed since,
   * else `fetch`ed (and kept when no change overtook the read).
   */
  async read(uuid: string, kind: Kind, fetch: () => Promise<string | null>): Promise<string | null> {
    const keeping = this.state === 'on';
    if (keeping) {
      const entry = this.entries.get(uuid);
      if (entry && entry.kind === kind && this.now() - entry.at < this.maxAgeMs) return entry.value;
    }
    const began = this.seq;
    this.inFlight++;
    try {
      const value = await fetch();
      if (keeping && this.state === 'on' && (this.changedAt.get(uuid) ?? 0) <= began)
        this.entries.set(uuid, { kind, value, at: this.now() });
      return value;
    } finally {
      // With no read under way there is nothing for a change to overtake: forget them.
      if (--this.inFlight === 0) this.changedAt.clear();
    }
  }

  /** Keeps only the domains of the latest listing (the others are gone). */
  retain(uuids: ReadonlySet<string>): void {
    for (const uuid of this.entries.keys()) if (!uuids.has(uuid)) this.entries.delete(uuid);
  }

  /** The connection is gone: its events with it. Nothing is kept from now on. */
  stop(): void {
    this.state = 'failed';
    this.entries.clear();
  }

  private changed(uuid: string): void {
    this.entries.delete(uuid);
    this.changedAt.set(uuid, ++this.seq);
  }

  private async start(): Promise<void> {
    this.state = 'starting';
    try {
      await this.changes((uuid) => this.changed(uuid));
      if (this.state === 'starting') this.state = 'on';
    } catch {
      // No events (an old daemon, a refused registration, a closed connection): every listing reads everything, as before.
      if (this.state === 'starting') this.state = 'failed';
    }
  }
}
