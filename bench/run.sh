#!/usr/bin/env bash
# `npm run bench`: bring up the test environment if needed (root), build, run bench/main.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
state="${EGRESS_TEST_STATE:-/var/tmp/egress-desk-test}"
if ! { [ -f "$state/env.json" ] && timeout 10 virsh -c qemu:///system version >/dev/null 2>&1; }; then
  # (g) needs only Chromium and the build: without the environment the others fail or skip, (g) still runs.
  bash test/env/up.sh >&2 || echo "bench: test/env/up.sh failed: (a)-(f) and (h) need the test environment (run it as root); (g) does not" >&2
fi
# The whole build: (g), (h) and (i) serve the renderer.
npm run --silent build >&2
exec node dist/bench/main.js "$@"
