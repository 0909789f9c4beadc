/** The steps of a launch, in order (docs/provider.md): the provider reports them, the app shows them. */
export const LAUNCH_STEPS = ['validate', 'place', 'image', 'upload', 'base', 'volumes', 'seed', 'define', 'boot', 'address', 'proxy'] as const;
export type LaunchStep = (typeof LAUNCH_STEPS)[number];
