/**
 * How a domain store is filled: subscribe to its events first, then make its one list call;
 * events that arrive while the call is in flight are applied after its answer, so nothing
 * is lost between the two. No polling: after the call, only events change the store.
 */
export function syncStore<T>(o: {
  subscribe: (apply: (payload: T) => void) => Array<() => void>;
  load: () => Promise<void>;
  apply: (payload: T) => void;
  fail: (err: unknown) => void;
}): () => void {
  let loaded = false;
  let stopped = false;
  const early: T[] = [];
  const offs = o.subscribe((payload) => {
    if (stopped) return;
    if (loaded) o.apply(payload);
    else early.push(payload);
  });
  o.load()
    .then(() => {
      if (stopped) return;
      loaded = true;
      for (const payload of early.splice(0)) o.apply(payload);
    })
    .catch((err: unknown) => {
      if (stopped) return;
      loaded = true;
      o.fail(err);
    });
  return () => {
    stopped = true;
    for (const off of offs) off();
  };
}
