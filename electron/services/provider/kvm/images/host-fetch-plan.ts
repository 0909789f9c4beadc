/**
 * Fetch-on-host, the pure half: the shell commands run on an SSH host (a probe, a staging
 * directory, the download with its SHA-256 check, a size poll, the cleanup), what their
 * output means, and the choice between fetching there and uploading from this machine.
 * host-fetch.ts runs them.
 *
 * The commands go through the SSH user's login shell, so each is `sh -c 'SCRIPT' NAME ARGS…`
 * with every value passed as a quoted argument, never pasted into the script.
 */

import type { ImageTransfer } from '../../../../../shared/app-settings.js';

export { IMAGE_TRANSFERS, type ImageTransfer } from '../../../../../shared/app-settings.js';

/** What a command run on the host printed, and its exit status (null: killed by a signal). */
export interface ShellResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one command line on a host (over its SSH connection). */
export type HostShell = (command: string, signal?: AbortSignal) => Promise<ShellResult>;

/** `s` as one POSIX shell word. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function script(name: string, body: string, args: readonly string[]): string {
  return `sh -c ${shellQuote(body)} ${name} ${args.map(shellQuote).join(' ')}`;
}

/**
 * Which downloader the host has, who the SSH user is, whether the URL answers from there,
 * its size (Content-Length) and its first 32 bytes (a qcow2 header holds the virtual size).
 * A HEAD request and a 32-byte range: nothing is downloaded yet. Always exits 0; the
 * verdict is in the output (see {@link parseProbe}).
 */
const PROBE = `url=$1
# Why the URL failed, in one line: the downloader's own error, else the last HTTP status line.
why() {
  line=$(printf '%s\n' "$1" | tr -d '\r' | grep -E '^(curl|wget): ' | head -n 1)
  [ -n "$line" ] || line=$(printf '%s\n' "$1" | tr -d '\r' | grep -E '^ *HTTP/' | tail -n 1 | sed 's/^ *//')
  echo "unreachable $line"
}
if command -v curl >/dev/null 2>&1; then tool=curl
elif command -v wget >/dev/null 2>&1; then tool=wget
else echo nodownloader; exit 0; fi
command -v sha256sum >/dev/null 2>&1 || { echo nosha256sum; exit 0; }
echo "tool $tool"
echo "id $(id -u) $(id -g)"
if [ "$tool" = curl ]; then
  head=$(curl -sSfIL --max-time 20 -- "$url" 2>&1) || { why "$head"; exit 0; }
  first=$(curl -sSfL --max-time 20 -r 0-31 -- "$url" 2>/dev/null | head -c 32 | od -An -v -tx1 | tr -d ' \\n')
else
  head=$(wget -q -S --spider -T 20 -- "$url" 2>&1) || { why "$head"; exit 0; }
  first=$(wget -q -T 20 -O - -- "$url" 2>/dev/null | head -c 32 | od -An -v -tx1 | tr -d ' \\n')
fi
len=$(printf '%s\\n' "$head" | tr -d '\\r' | sed -n 's/^ *[Cc]ontent-[Ll]ength: *\\([0-9][0-9]*\\).*/\\1/p' | tail -n 1)
echo "size \${len:-unknown}"
echo "head $first"
`;

export function probeCommand(url: string): string {
  return script('egress-probe', PROBE, [url]);
}

/** The host can fetch the image: with what, as whom, and what it will get. */
export interface ProbeReady {
  ok: true;
  tool: 'curl' | 'wget';
  uid: number;
  gid: number;
  /** The image file's size in bytes, from the server's Content-Length. */
  size: number;
  /** Its first bytes (up to 32). */
  header: Buffer;
}
export type HostProbe = ProbeReady | { ok: false; reason: string };

/** Reads the probe's output into a verdict; `reason` says, for a person, why the host cannot fetch. */
export function parseProbe(result: ShellResult): HostProbe {
  const lines = result.stdout.split('\n').map((l) => l.trim());
  const word = (key: string): string | undefined =>
    lines.find((l) => l === key || l.startsWith(`${key} `))?.slice(key.length + 1);
  if (result.code !== 0)
    return {
      ok: false,
      reason: `the probe failed on the host (exit ${result.code ?? 'by signal'}${result.stderr.trim() ? `: ${lastLine(result.stderr)}` : ''})`,
    };
  if (lines.includes('nodownloader')) return { ok: false, reason: 'the host has neither curl nor wget' };
  if (lines.includes('nosha256sum')) return { ok: false, reason: 'the host has no sha256sum to check the image with' };
  const unreachable = word('unreachable');
  if (unreachable !== undefined)
    return {
      ok: false,
      reason: `the image URL does not answer from the host${unreachable ? ` (${unreachable})` : ''}`,
    };
  const tool = word('tool');
  const ids = /^(\d+) (\d+)$/.exec(word('id') ?? '');
  const size = word('size');
  const head = word('head') ?? '';
  if ((tool !== 'curl' && tool !== 'wget') || !ids || size === undefined)
    return {
      ok: false,
      reason: `the host's probe printed something unexpected (${lastLine(result.stdout) || 'nothing'})`,
    };
  if (!/^\d+$/.test(size) || Number(size) === 0)
    return { ok: false, reason: 'the server tells the host no size for the image (no Content-Length)' };
  if (!/^(?:[0-9a-f]{2})*$/.test(head))
    return { ok: false, reason: `the host read an unexpected image header (${head.slice(0, 16)}…)` };
  return {
    ok: true,
    tool,
    uid: Number(ids[1]),
    gid: Number(ids[2]),
    size: Number(size),
    header: Buffer.from(head, 'hex'),
  };
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? '';
}

/** The decision before any byte moves: fetch on the host, or upload from here (and why). */
export type TransferPlan = { mode: 'fetch'; probe: ProbeReady } | { mode: 'upload'; reason: string | undefined };

/**
 * What can be decided without asking the host: `upload` when set so or when the host is
 * this machine or the URL is not http(s); undefined when the host must be probed.
 * `reason` is undefined when the person chose upload (nothing to explain).
 */
export function transferWithoutProbe(
  setting: ImageTransfer,
  host: { address: string },
  url: string,
): TransferPlan | undefined {
  if (setting === 'upload') return { mode: 'upload', reason: undefined };
  if (host.address === 'local') return { mode: 'upload', reason: 'the host is this machine' };
  const protocol = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (protocol !== 'http' && protocol !== 'https')
    return {
      mode: 'upload',
      reason: `a ${protocol ?? 'relative'}: URL names a file on this machine, not one the host can download`,
    };
  return undefined;
}

/** The plan once the host answered the probe. */
export function transferAfterProbe(probe: HostProbe): TransferPlan {
  return probe.ok ? { mode: 'fetch', probe } : { mode: 'upload', reason: probe.reason };
}

/** A staging directory of the SSH user's, for one download (printed by mktemp). */
export function makeStagingDirCommand(): string {
  return script('egress-stage', 'mktemp -d "${TMPDIR:-/var/tmp}/egress-stage.XXXXXXXX"', []);
}

/** Only a directory made by {@link makeStagingDirCommand} is ever removed. */
export const STAGING_DIR = /^\/[^\0\n]*\/egress-stage\.[A-Za-z0-9]{8}$/;

/**
 * The download into `file` and the SHA-256 check: exit 10 download failed, 11 digest differs
 * (printed), 0 size printed. The downloader runs in the background with its pid in
 * `pidFile`, removed when it ends: a cancelled launch closes the channel, which does not stop
 * a process writing to a file, so the cleanup ({@link removeStagingDirCommand}) kills it.
 */
const DOWNLOAD = `tool=$1 url=$2 file=$3 sum=$4 pidfile=$5
if [ "$tool" = curl ]; then curl -sSfL --retry 2 -o "$file" -- "$url" &
else wget -q -O "$file" -- "$url" & fi
echo $! > "$pidfile"
wait $!; status=$?
rm -f "$pidfile"
[ "$status" = 0 ] || exit 10
got=$(sha256sum -- "$file" | cut -d ' ' -f 1)
[ "$got" = "$sum" ] || { echo "sha256 $got"; exit 11; }
echo "size $(wc -c < "$file")"
`;

export function downloadCommand(
  tool: 'curl' | 'wget',
  url: string,
  file: string,
  sha256: string,
  pidFile: string,
): string {
  return script('egress-fetch', DOWNLOAD, [tool, url, file, sha256, pidFile]);
}

/** Where {@link downloadCommand} keeps the downloader's pid: inside the staging directory, so the cleanup finds it. */
export function pidFileIn(dir: string): string {
  return `${dir}/downloader.pid`;
}

/** The outcome of {@link downloadCommand}: the verified file's size, or an error for a person. */
export function parseDownload(
  result: ShellResult,
  url: string,
  sha256: string,
): { ok: true; size: number } | { ok: false; message: string } {
  if (result.code === 0) {
    const size = /^size (\d+)$/m.exec(result.stdout)?.[1];
    if (size !== undefined) return { ok: true, size: Number(size) };
    return { ok: false, message: `the host's download printed no size (${lastLine(result.stdout) || 'nothing'})` };
  }
  if (result.code === 11) {
    const got = /^sha256 ([0-9a-f]*)$/m.exec(result.stdout)?.[1] ?? '?';
    return {
      ok: false,
      message: `the image the host downloaded from ${url} has SHA-256 ${got}, not the configured ${sha256}: it was deleted`,
    };
  }
  const why = lastLine(result.stderr);
  return {
    ok: false,
    message: `the host could not download ${url}${why ? `: ${why}` : ` (exit ${result.code ?? 'by signal'})`}`,
  };
}

/** The staged file's size so far (progress as the host sees it). */
export function sizeCommand(file: string): string {
  return script('egress-size', 'wc -c < "$1" 2>/dev/null || echo 0', [file]);
}

/** Stops a downloader still running (a cancelled launch), then removes the directory. */
export function removeStagingDirCommand(dir: string): string {
  if (!STAGING_DIR.test(dir))
    throw new Error(`refusing to remove ${JSON.stringify(dir)}: not a staging directory of this app`);
  return script('egress-unstage', 'pid=$(cat "$2" 2>/dev/null) && kill "$pid" 2>/dev/null; rm -rf -- "$1"', [
    dir,
    pidFileIn(dir),
  ]);
}
