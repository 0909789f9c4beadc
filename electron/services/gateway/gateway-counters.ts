/**
 * The gateway's counters (issue 40), per member and per client, since it started: what the
 * Gateway view's shares and `egress-desk metrics`' gateway series read. Kept in memory only:
 * they are figures about this run of the gateway, not facts about the fleet.
 */

/** One member's or client's figures. */
export interface GatewayTally {
  /** Requests relayed (a CONNECT tunnel or a plain request, once it ended). */
  requests: number;
  /** Bytes from clients towards targets, and back. */
  bytesOut: number;
  bytesIn: number;
  /** Members: connects that failed (another member took the request where one could); clients: requests refused. */
  failures: number;
}

const zero = (): GatewayTally => ({ requests: 0, bytesOut: 0, bytesIn: 0, failures: 0 });

export class GatewayCounters {
  private readonly members = new Map<string, GatewayTally>();
  private readonly clients = new Map<string, GatewayTally>();
  /** Requests refused before a client was known (no or wrong credentials). */
  private anonymousRefusals = 0;

  relayed(member: string, client: string, bytesOut: number, bytesIn: number): void {
    for (const t of [this.of(this.members, member), this.of(this.clients, client)]) {
      t.requests++;
      t.bytesOut += bytesOut;
      t.bytesIn += bytesIn;
    }
  }

  /** A member could not be reached, or refused, for one try. */
  failed(member: string): void {
    this.of(this.members, member).failures++;
  }

  /** A request refused (undefined: before its client was known). */
  refused(client: string | undefined): void {
    if (client === undefined) this.anonymousRefusals++;
    else this.of(this.clients, client).failures++;
  }

  snapshot(): {
    members: Record<string, GatewayTally>;
    clients: Record<string, GatewayTally>;
    refusedUnknown: number;
  } {
    const copy = (m: Map<string, GatewayTally>) => Object.fromEntries([...m].map(([k, t]) => [k, { ...t }]));
    return { members: copy(this.members), clients: copy(this.clients), refusedUnknown: this.anonymousRefusals };
  }

  private of(map: Map<string, GatewayTally>, key: string): GatewayTally {
    let t = map.get(key);
    if (!t) map.set(key, (t = zero()));
    return t;
  }
}
