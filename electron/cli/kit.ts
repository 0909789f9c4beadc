/**
 * What command modules get to define their commands (a context per invocation, and exit
 * codes). Its own module so that `program.ts` imports the commands and the commands import
 * only this: no import cycle between the tree and its branches.
 */
import type { Command } from 'commander';
import { type CliContext, createContext } from './context.js';
import type { CliIo, GlobalOptions } from './io.js';

export interface CommandKit {
  /** Wraps an action: its resolved number becomes the process's exit code. */
  action<A extends unknown[]>(
    fn: (ctx: CliContext, ...args: A) => Promise<number> | number,
  ): (...args: A) => Promise<void>;
}

/** The kit of one program: each action's exit code goes to `setExit`. */
export function createKit(io: CliIo, setExit: (code: number) => void): CommandKit {
  return {
    action:
      (fn) =>
      async (...args) => {
        // Commander passes the Command itself last; its options merged with the root's are the globals.
        const cmd = args[args.length - 1] as Command;
        setExit(await fn(createContext(io, cmd.optsWithGlobals<GlobalOptions>()), ...args));
      },
  };
}
