/**
 * OpenSSH's host patterns (ssh_config(5) PATTERNS), shared by ssh_config `Host` lines and
 * known_hosts host fields.
 *
 * Written here rather than taken from the ssh-config package's `glob`: that one turns `?` into
 * "zero or one character" and matches case-sensitively, where OpenSSH's `?` is exactly one
 * character and host names are compared in lower case.
 */

/** Whether `text` matches one glob `pattern` (`*` any run, `?` exactly one character), case-insensitively. */
export function matchPattern(text: string, pattern: string): boolean {
  const s = text.toLowerCase();
  const p = pattern.toLowerCase();
  // Iterative glob with one backtrack point: linear in practice, no regular expressions to escape.
  let si = 0;
  let pi = 0;
  let starP = -1;
  let starS = 0;
  while (si < s.length) {
    const pc = p[pi];
    if (pc === '*') {
      starP = pi++;
      starS = si;
    } else if (pc !== undefined && (pc === '?' || pc === s[si])) {
      pi++;
      si++;
    } else if (starP >= 0) {
      pi = starP + 1;
      si = ++starS;
    } else {
      return false;
    }
  }
  while (p[pi] === '*') pi++;
  return pi === p.length;
}

/** The outcome of matching a pattern list, as OpenSSH's match_pattern_list. */
export type PatternListMatch = 'match' | 'negated' | 'none';

/**
 * Matches `text` against a list of patterns, each possibly negated with `!`. A matching
 * negated pattern wins over everything else ("negated"), whatever the order.
 */
export function matchPatternList(text: string, patterns: readonly string[]): PatternListMatch {
  let result: PatternListMatch = 'none';
  for (const raw of patterns) {
    const pattern = raw.trim();
    if (pattern === '') continue;
    if (pattern.startsWith('!')) {
      if (matchPattern(text, pattern.slice(1))) return 'negated';
    } else if (matchPattern(text, pattern)) {
      result = 'match';
    }
  }
  return result;
}

/** Whether a host name is selected by a pattern list (a positive match and no negated one). */
export function hostMatches(host: string, patterns: readonly string[]): boolean {
  return matchPatternList(host, patterns) === 'match';
}
