/**
 * Per-host serialisation of pool-changing work. libvirt refuses some pool operations
 * while another job runs on the pool ("pool has asynchronous jobs running"), and the
 * order of creates and deletes on one pool must be predictable; different hosts run in
 * parallel.
 */
export class HostQueues {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `job` after every job queued before it for `host`; a failed job does not block the next. */
  run<T>(host: string, job: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(host) ?? Promise.resolve();
    const result = previous.then(job, job);
    const tail = result.catch(() => undefined);
    this.tails.set(host, tail);
    // Forget an idle host so the map does not grow with every host ever used.
    void tail.then(() => {
      if (this.tails.get(host) === tail) this.tails.delete(host);
    });
    return result;
  }
}
