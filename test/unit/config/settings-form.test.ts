/**
 * The Settings view's one form object (shared/settings-form.ts): the settings in force as
 * typed text, what settings:set gets from it (an empty field is its default), and the
 * problems by field in the contract's words, as test/browser/settings-view.test.ts sees
 * them in the page.
 */
import { describe, expect, it } from 'vitest';
import { editableSettingsOf } from '../../../shared/app-settings.js';
import {
  checkSettingsForm,
  formToSettings,
  sameSettingsForm,
  settingsIssuesByField,
  settingsToForm,
} from '../../../shared/settings-form.js';

const defaults = settingsToForm(editableSettingsOf({ hosts: {}, health: {} }));

describe('the settings form', () => {
  it('shows the defaults in force: empty URLs, threshold and pace; 10 minutes and 2 an hour', () => {
    expect(defaults).toEqual({
      checkUrl: '',
      echoUrl: '',
      slowMs: '',
      intervalSeconds: '',
      autoBake: true,
      autoReplace: false,
      afterMinutes: '10',
      maxPerHour: '2',
    });
    expect(formToSettings(defaults)).toEqual({
      health: {},
      autoBake: true,
      autoReplace: { enabled: false, afterMinutes: 10, maxPerHour: 2 },
    });
  });

  it('round-trips what was saved, the health pace among it', () => {
    const form = { ...defaults, echoUrl: ' http://127.0.0.1:9/ip ', slowMs: '750', intervalSeconds: '15' };
    const checked = checkSettingsForm(form);
    expect(checked).toEqual({
      ok: true,
      input: {
        health: { echoUrl: 'http://127.0.0.1:9/ip', slowMs: 750, intervalSeconds: 15 },
        autoBake: true,
        autoReplace: { enabled: false, afterMinutes: 10, maxPerHour: 2 },
      },
    });
    const again = settingsToForm(
      editableSettingsOf({ hosts: {}, health: { echoUrl: 'http://127.0.0.1:9/ip', slowMs: 750, intervalSeconds: 15 } }),
    );
    expect(sameSettingsForm(again, { ...form, echoUrl: 'http://127.0.0.1:9/ip' })).toBe(true);
    expect(sameSettingsForm(again, defaults)).toBe(false);
  });

  it('refuses a pace under 5 s, over an hour, or not a whole number, under its field; text is named as typed', () => {
    const problem = (intervalSeconds: string) => {
      const checked = checkSettingsForm({ ...defaults, intervalSeconds });
      return checked.ok ? undefined : settingsIssuesByField(checked.issues).fields['health.intervalSeconds'];
    };
    expect(problem('2')).toBe('must be at least 5 (got 2)');
    expect(problem('3601')).toMatch(/at most 3600/);
    expect(problem('7.5')).toMatch(/integer|whole/);
    expect(problem('often')).toMatch(/often/);
    expect(problem('5')).toBeUndefined();
  });

  it('keeps problems no field shows apart, with their path', () => {
    expect(
      settingsIssuesByField([
        { path: 'health.slowMs', message: 'a' },
        { path: 'health.slowMs', message: 'second' },
        { path: 'hosts', message: 'cannot be set here' },
        { path: '', message: 'no settings' },
      ]),
    ).toEqual({ fields: { 'health.slowMs': 'a' }, other: ['hosts: cannot be set here', 'no settings'] });
  });
});
