/** The app's own settings (settings.json), read and saved by the Settings view, which holds the answer it edits. */
import type { ChannelInput, ChannelOutput } from '../../shared/ipc.js';
import { storeApi } from './store-api.js';

/** The settings in force, defaults filled in. */
export const readSettings = (): Promise<ChannelOutput<'settings:get'>> => storeApi().settings.get();

/** Saves the sections given; resolves with the settings in force after it (refused input names its field). */
export const saveSettings = (input: ChannelInput<'settings:set'>): Promise<ChannelOutput<'settings:set'>> =>
  storeApi().settings.set(input);
