/**
 * The `settings` area: the app's own settings (settings.json in the data directory) as the
 * Settings view shows and edits them. Read afresh on every call (the CLI writes the same
 * file); written through the one atomic settings update, which keeps every key it is not
 * asked to change (`hosts` above all). Nothing here caches: the health monitor, auto-bake
 * and auto-replace read the file themselves on each round or launch.
 */
import { editableSettingsOf, withEditableSettings } from '../../../shared/app-settings.js';
import type { AreaService, ChannelInput, ChannelOutput } from '../../../shared/ipc.js';
import { readSettingsFile, updateSettingsFile } from '../settings/settings-file.js';

export class SettingsArea implements AreaService<'settings'> {
  /** `file`: the settings file; absent (a front end without a data directory): both channels refuse. */
  constructor(private readonly file?: string) {}

  /** The settings in force, defaults filled in; a broken file is an error naming it and the field. */
  async get(): Promise<ChannelOutput<'settings:get'>> {
    const file = this.fileOrRefuse();
    return { file, settings: editableSettingsOf(await readSettingsFile(file)) };
  }

  /** Puts the sections given in (the router has validated them); answers what is in force after. */
  async set(input: ChannelInput<'settings:set'>): Promise<ChannelOutput<'settings:set'>> {
    const file = this.fileOrRefuse();
    // The router hands over the parsed input: sections given are complete (defaults filled in).
    const change = input as Parameters<typeof withEditableSettings>[1];
    return {
      file,
      settings: editableSettingsOf(await updateSettingsFile(file, (s) => withEditableSettings(s, change))),
    };
  }

  private fileOrRefuse(): string {
    if (!this.file) throw new Error('this front end keeps no settings file: edit settings.json in the data directory');
    return this.file;
  }
}
