/** One channel of the contract (shared/ipc.ts): what it accepts and what it returns. */
import type { z } from 'zod';

export interface ChannelSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
}

/** A channel from its input and output schemas. */
export function channel<I extends z.ZodType, O extends z.ZodType>(input: I, output: O): ChannelSpec<I, O> {
  return { input, output };
}
