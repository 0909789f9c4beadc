/**
 * The QEMU guest agent through libvirt's QEMU program (0x20008087, procedure 3,
 * virDomainQemuAgentCommand): how the guest lane reads a booted proxy's hostname and runs
 * commands inside it. The app never needs it: it learns addresses through
 * DOMAIN_INTERFACE_ADDRESSES (source agent, lease or ARP). Replies are JSON, checked with
 * zod before use.
 */
import { z } from 'zod';
import { decodeAll, encodeToBuffer, int, struct, uint } from '../../electron/libvirt/codec.js';
import { ErrorCode, LibvirtError } from '../../electron/libvirt/errors.js';
import { Program } from '../../electron/libvirt/packet.js';
import { type DomainRef, domain, ostring, rstring } from '../../electron/libvirt/types.js';

const QEMU_PROC_DOMAIN_AGENT_COMMAND = 3;
const agentArgs = struct('qemu_domain_agent_command_args', { dom: domain, cmd: rstring, timeout: int, flags: uint });
const agentRet = struct('qemu_domain_agent_command_ret', { result: ostring });

/** The caller side this needs: a raw call on another program. */
export interface RawCaller {
  callRaw(proc: number, payload?: Uint8Array, prog?: number): Promise<Buffer>;
}

/** True when the error means "the agent is not (yet) there": not started, or not answering. */
export function isAgentUnavailable(err: unknown): boolean {
  return (
    err instanceof LibvirtError &&
    (err.code === ErrorCode.AGENT_UNRESPONSIVE ||
      err.code === ErrorCode.OPERATION_INVALID ||
      err.code === ErrorCode.OPERATION_UNSUPPORTED)
  );
}

/** Runs one agent command; resolves to its `return` value. `timeoutSeconds` bounds the wait in libvirt. */
export async function agentCommand(
  client: RawCaller,
  dom: DomainRef,
  command: { execute: string; arguments?: Record<string, unknown> },
  timeoutSeconds = 5,
): Promise<unknown> {
  const payload = encodeToBuffer(agentArgs, { dom, cmd: JSON.stringify(command), timeout: timeoutSeconds, flags: 0 });
  const reply = decodeAll(agentRet, await client.callRaw(QEMU_PROC_DOMAIN_AGENT_COMMAND, payload, Program.QEMU));
  if (reply.result === null) return undefined;
  const parsed = z.object({ return: z.unknown() }).safeParse(JSON.parse(reply.result));
  if (!parsed.success)
    throw new Error(`guest agent: unexpected reply to ${command.execute}: ${reply.result.slice(0, 200)}`);
  return parsed.data.return;
}

/** The guest's hostname, as the agent reports it. */
export async function agentHostname(client: RawCaller, dom: DomainRef): Promise<string> {
  const r = z
    .object({ 'host-name': z.string() })
    .parse(await agentCommand(client, dom, { execute: 'guest-get-host-name' }));
  return r['host-name'];
}

/** A program run through the agent did not finish in time. */
export class AgentTimeoutError extends Error {
  override readonly name = 'AgentTimeoutError';
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const execStatus = z.object({
  exited: z.boolean(),
  exitcode: z.number().optional(),
  'out-data': z.string().optional(),
  'err-data': z.string().optional(),
});

/** Runs a program in the guest and waits (bounded) for it to finish. */
export async function agentExec(
  client: RawCaller,
  dom: DomainRef,
  path: string,
  args: string[],
  waitMs = 60_000,
): Promise<ExecResult> {
  const started = z.object({ pid: z.number() }).parse(
    await agentCommand(client, dom, {
      execute: 'guest-exec',
      arguments: { path, arg: args, 'capture-output': true },
    }),
  );
  const deadline = Date.now() + waitMs;
  for (;;) {
    const s = execStatus.parse(
      await agentCommand(client, dom, { execute: 'guest-exec-status', arguments: { pid: started.pid } }),
    );
    if (s.exited) {
      const text = (b64?: string) => (b64 ? Buffer.from(b64, 'base64').toString('utf8') : '');
      return { exitCode: s.exitcode ?? -1, stdout: text(s['out-data']), stderr: text(s['err-data']) };
    }
    if (Date.now() > deadline)
      throw new AgentTimeoutError(`${path} ${args.join(' ')} did not finish within ${waitMs / 1000} s in the guest`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
