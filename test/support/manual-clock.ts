/** A {@link StatsClock} that tests move by hand: timers run as time reaches them, and what they start settles. */
import type { StatsClock } from '../../electron/services/app/fleet-stats.js';

/** A clock whose time moves only when the test says, running what falls due. */
export class ManualClock implements StatsClock {
  private t = 1_000_000;
  private timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  now = () => this.t;
  schedule = (fn: () => void, ms: number) => {
    const timer = { at: this.t + ms, fn, live: true };
    this.timers.push(timer);
    return () => void (timer.live = false);
  };
  /** The pending timers' due times, from now. */
  pending(): number[] {
    return this.timers.filter((x) => x.live).map((x) => x.at - this.t);
  }
  /** Moves time on by `ms`, running each timer as it falls due and letting what it started settle. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.live && x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.t = due.at;
      due.live = false;
      due.fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}

export async function settle(): Promise<void> {
  // The fake hosts answer after a few event-loop turns: let each call and what follows it finish.
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}
