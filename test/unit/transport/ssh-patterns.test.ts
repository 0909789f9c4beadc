import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostMatches, matchPattern, matchPatternList } from '../../../electron/transport/ssh-patterns.js';

describe('OpenSSH host patterns', () => {
  it.each([
    ['web1', 'web*', true],
    ['web', 'web*', true],
    ['web1', '*1', true],
    ['db1', 'db?', true],
    ['db', 'db?', false],
    ['db10', 'db?', false],
    ['a.b.c', '*.b.*', true],
    ['EDGE', 'edge', true],
    ['[10.0.0.5]:2200', '[10.0.0.*]:2200', true],
    ['[10.0.0.5]:22', '[10.0.0.*]:2200', false],
    ['abc', 'a*b*c*', true],
    ['aXbXc', 'a*c', true],
    ['ab', 'a*bb', false],
  ])('%s against %s → %s', (text, pattern, expected) => {
    expect(matchPattern(text, pattern)).toBe(expected);
  });

  it('lets a matching negated pattern win, whatever the order', () => {
    expect(matchPatternList('web-internal', ['!web-internal', 'web*'])).toBe('negated');
    expect(matchPatternList('web-internal', ['web*', '!web-internal'])).toBe('negated');
    expect(matchPatternList('web1', ['web*', '!web-internal'])).toBe('match');
    expect(matchPatternList('db', ['web*'])).toBe('none');
    expect(hostMatches('x', ['!y'])).toBe(false); // a negation alone selects nothing
  });

  it('matches any text against itself (no wildcards) and against *', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/[*?]/.test(s)),
        (s) => matchPattern(s, s) && matchPattern(s, '*') && matchPattern(s, s.toUpperCase()),
      ),
    );
  });

  it('matches ? to exactly one character', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 1 }), fc.string(), (one, rest) =>
        matchPattern(one + rest, `?${rest.replace(/[*?]/g, '?')}`),
      ),
    );
    expect(matchPattern('', '?')).toBe(false);
  });
});
