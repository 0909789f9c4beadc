/**
 * The Gateway view's form object (shared/gateway-form.ts, issue 40): the settings in force as
 * typed text, what `gateway:set` gets, and problems by field in the contract's words.
 */
import { describe, expect, it } from 'vitest';
import { GatewaySettingsSchema } from '../../../shared/gateway.js';
import { checkGatewayForm, gatewayToForm, sameGatewayForm } from '../../../shared/gateway-form.js';

const defaults = gatewayToForm(GatewaySettingsSchema.parse({}));

describe('the gateway form', () => {
  it('shows the defaults: off, 3130 and 3131 on loopback, no query strings', () => {
    expect(defaults).toEqual({ enabled: false, port: '3130', bind: '127.0.0.1', socksPort: '3131', logQuery: false });
  });

  it('sends what was typed; an empty SOCKS5 port is none', () => {
    const form = { ...defaults, enabled: true, port: ' 0 ', socksPort: '' };
    expect(checkGatewayForm(form)).toEqual({
      ok: true,
      settings: { enabled: true, port: 0, bind: '127.0.0.1', socksPort: null, logQuery: false },
    });
    expect(
      sameGatewayForm(gatewayToForm({ enabled: true, port: 0, bind: '127.0.0.1', socksPort: null, logQuery: false }), {
        ...form,
        port: '0',
      }),
    ).toBe(true);
  });

  it('names each field that is wrong', () => {
    const checked = checkGatewayForm({ ...defaults, port: '70000', socksPort: 'x', bind: 'example.com' });
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.problems.port).toMatch(/65535/);
      expect(checked.problems.socksPort).toMatch(/x/);
      expect(checked.problems.bind).toBe('must be an IPv4 or IPv6 address of this machine, or localhost');
    }
  });
});
