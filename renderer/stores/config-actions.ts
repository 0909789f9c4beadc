/**
 * What the Config view asks of the backend: an export and an import preview change nothing;
 * an import is a config write (through the config store's `write`: it resolves once the
 * store shows the imported config).
 */
import type { ChannelInput, ChannelOutput } from '../../shared/ipc.js';
import { useAppConfigStore } from './app-config-store.js';
import { storeApi } from './store-api.js';

type Syntax = NonNullable<ChannelInput<'config:import'>['syntax']>;

/** The config (or the fleet's proxies) as a file of a format. */
export const exportConfig = (
  format: ChannelInput<'config:export'>['format'],
): Promise<ChannelOutput<'config:export'>> => storeApi().config.export({ format });

/** What importing this text would do (nothing is written). */
export const previewImport = (text: string, syntax: Syntax): Promise<ChannelOutput<'config:previewImport'>> =>
  storeApi().config.previewImport({ text, syntax });

/** Replaces the config file with this text (the person confirmed the preview). */
export const importConfig = (text: string, syntax: Syntax): Promise<ChannelOutput<'config:import'>> =>
  useAppConfigStore.getState().write((api) => api.config.import({ text, syntax, confirm: true }));
