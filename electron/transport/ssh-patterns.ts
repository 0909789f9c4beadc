/**
 * OpenSSH's host patterns (ssh_config(5) PATTERNS), shared by ssh_config `Host` and `Match`
 * lines and known_hosts host fields.
 *
 * Written here rather than taken from the ssh-config package's `glob`: that one turns `?` into
 * "zero or one character". Case follows OpenSSH, which differs by caller: `Host` lines compare
 * the name as typed (match_pattern), `Match host`/`originalhost` and known_hosts compare in
 * lower case (match_hostname), `Match user`/`localuser` compare as written.
 */

/** How to compare. Default: in lower case (known_hosts). */
export interface PatternOptions {
  lowerCase: boolean;
}

const LOWER: PatternOptions = { lowerCase: true };

/** Whether `text` matches one glob `pattern` (`*` any run, `?` exactly one character). */
export function matchPattern(text: string, pattern: string, options: PatternOptions = LOWER): boolean {
  const s = options.lowerCase ? text.toLowerCase() : text;
  const p = options.lowerCase ? pattern.toLowerCase() : pattern;
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
export function matchPatternList(
  text: string,
  patterns: readonly string[],
  options: PatternOptions = LOWER,
): PatternListMatch {
  let result: PatternListMatch = 'none';
  for (const raw of patterns) {
    const pattern = raw.trim();
    if (pattern === '') continue;
    if (pattern.startsWith('!')) {
      if (matchPattern(text, pattern.slice(1), options)) return 'negated';
    } else if (matchPattern(text, pattern, options)) {
      result = 'match';
    }
  }
  return result;
}

/** Whether a host name is selected by a pattern list (a positive match and no negated one), in lower case. */
export function hostMatches(host: string, patterns: readonly string[]): boolean {
  return matchPatternList(host, patterns) === 'match';
}
