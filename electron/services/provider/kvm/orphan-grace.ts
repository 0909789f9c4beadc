/**
 * How old a volume with no domain must be before it is taken for left over: reconcile calls
 * such an instance volume an orphan, and base-prune removes such a base, only past it. It is
 * longer than a launch takes from its first volume to its domain (the default launch
 * timeout, 10 min, plus a margin). Launches under way in this process are known exactly
 * (`ctx.launching`); this covers another process (the app beside the CLI, a script).
 */
export const ORPHAN_GRACE_MS = 15 * 60_000;
