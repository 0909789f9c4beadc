/** The steps of a launch, in order (docs/provider.md): the provider reports them, the app shows them. */
export const LAUNCH_STEPS = [
  'validate',
  'place',
  'image',
  'upload',
  'base',
  'volumes',
  'seed',
  'define',
  'boot',
  'address',
  'proxy',
] as const;
export type LaunchStep = (typeof LAUNCH_STEPS)[number];

/** The last steps, run only when the launch is asked to wait for the proxy to answer (`--wait`, the app). */
export const WAIT_STEPS = ['address', 'proxy'] as const satisfies readonly LaunchStep[];

/** The steps in words, for help texts: `validate, place, … boot (and with --wait: address, proxy)`. */
export function launchStepsText(): string {
  const waiting: readonly string[] = WAIT_STEPS;
  const always = LAUNCH_STEPS.filter((s) => !waiting.includes(s));
  return `${always.join(', ')} (and with --wait: ${WAIT_STEPS.join(', ')})`;
}
