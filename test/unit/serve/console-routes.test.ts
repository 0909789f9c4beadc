/** ConsoleRoutes (electron/serve/console-routes.ts): which socket a console session's events go to. */
import { describe, expect, it } from 'vitest';
import { ConsoleRoutes } from '../../../electron/serve/console-routes.js';

describe('ConsoleRoutes', () => {
  it('holds the events of an unclaimed session and hands them, in order, to the tab that claims it', () => {
    const routes = new ConsoleRoutes<string>();
    expect(routes.route('s1', 'a', false)).toBeUndefined();
    expect(routes.route('s1', 'b', false)).toBeUndefined();
    expect(routes.claim('s1', 'tab-1')).toEqual({ texts: ['a', 'b'], ended: false });
    expect(routes.route('s1', 'c', false)).toBe('tab-1');
    expect(routes.route('s1', 'end', true)).toBe('tab-1');
  });

  it('hands over the end too when the session ended before its claim, and routes nothing to that tab after', () => {
    const routes = new ConsoleRoutes<string>();
    routes.route('s1', 'a', false);
    routes.route('s1', 'end', true);
    expect(routes.claim('s1', 'tab-1')).toEqual({ texts: ['a', 'end'], ended: true });
    expect(routes.route('s1', 'x', false)).toBeUndefined();
  });

  it('sends nothing of a dropped session to anyone, held or still to come, and forgets it at its end', () => {
    const routes = new ConsoleRoutes<string>();
    routes.route('s1', 'a', false);
    routes.drop('s1');
    expect(routes.route('s1', 'b', false)).toBeUndefined();
    // A claim after the drop (its tab went first) gets nothing, and nothing after.
    expect(routes.claim('s1', 'tab-1').texts).toEqual([]);
    expect(routes.route('s1', 'c', false)).toBeUndefined();
    expect(routes.route('s1', 'end', true)).toBeUndefined();
    // Dropped after its claim: the rest goes nowhere.
    routes.claim('s2', 'tab-2');
    routes.drop('s2');
    expect(routes.route('s2', 'late output', false)).toBeUndefined();
  });

  it('bounds what it holds: sessions nobody claims, and output past the limit', () => {
    const routes = new ConsoleRoutes<string>({ sessions: 2, chars: 4 });
    routes.route('s1', 'aa', false);
    routes.route('s2', 'bb', false);
    routes.route('s3', 'cc', false);
    expect(routes.claim('s1', 'tab').texts).toEqual([]);
    routes.route('s2', 'ccc', false);
    routes.route('s2', 'end', true);
    expect(routes.claim('s2', 'tab')).toEqual({ texts: ['bb', 'end'], ended: true });
    expect(routes.claim('s3', 'tab').texts).toEqual(['cc']);
  });
});
