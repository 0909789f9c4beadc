/**
 * ssh_config lines split into keyword and arguments exactly as OpenSSH 9.2 splits them
 * (readconf.c `process_config_line`, `strdelim` and misc.c `argv_split`).
 *
 * Written here rather than taken from the ssh-config package: that parser reads `#` inside a
 * word as a comment (`User ops#2` became `ops`), joins `"a b" c` into one value, and keeps no
 * line numbers, so neither the values nor OpenSSH's "FILE line N:" messages could be right.
 * The rules, which `ssh -G` confirms (test/unit/transport/ssh-config-openssh.test.ts):
 *
 * - a line ends at `\n`; trailing spaces, tabs, `\r` and `\f` are dropped (so CRLF files work);
 * - the keyword ends at whitespace, `"` or one `=` (`Port=22`, `Port = 22`), and is case-insensitive;
 * - the arguments are words split at spaces and tabs; `"` and `'` quote, `\` escapes a quote,
 *   a backslash or (outside quotes) a space; a word that *starts* with `#` ends the line, a `#`
 *   inside a word is part of it;
 * - an unterminated quote is "invalid quotes"; a keyword with nothing after it is an error.
 */
import type { SshConfigFile } from './ssh-config-types.js';

/** One keyword line of an ssh_config file. */
export interface ConfigLine {
  file: string;
  /** 1-based. */
  line: number;
  /** Lower case, as OpenSSH compares it. */
  keyword: string;
  /** The arguments, unquoted. */
  args: string[];
  /** The text after the keyword, as written: `Match` and `ProxyJump`/`ProxyCommand` read it themselves. */
  rest: string;
}

/** A line OpenSSH refuses: its message in OpenSSH's words, "FILE line N: …". */
export interface ConfigProblem {
  file: string;
  line: number;
  message: string;
  /** OpenSSH writes "FILE: line N:" for an unknown keyword, "FILE line N:" for the rest. */
  colonAfterFile?: boolean;
}

/** A parsed file: its keyword lines and the lines OpenSSH would refuse at this stage. */
export interface ParsedConfigFile {
  path: string;
  lines: ConfigLine[];
  problems: ConfigProblem[];
}

const WHITESPACE = ' \t\r\n';

/** Splits a config file into lines; never throws. */
export function parseConfigFile(file: SshConfigFile): ParsedConfigFile {
  const lines: ConfigLine[] = [];
  const problems: ConfigProblem[] = [];
  const texts = file.text.split('\n');
  texts.forEach((raw, index) => {
    const lineNo = index + 1;
    const text = raw.replace(/[ \t\r\n\f]+$/, '');
    if (text === '') return;
    let [keyword, pos] = strdelim(text, 0, true);
    if (keyword === '' && pos !== null) [keyword, pos] = strdelim(text, pos, true);
    if (keyword === null || keyword === '' || keyword.startsWith('#')) return;
    const lower = keyword.toLowerCase();
    let rest = pos === null ? '' : text.slice(pos);
    rest = rest.slice(span(rest, 0, WHITESPACE));
    if (rest === '') {
      problems.push({ file: file.path, line: lineNo, message: `no argument after keyword "${lower}"` });
      return;
    }
    const args = argvSplit(rest);
    if (args === null) {
      problems.push({ file: file.path, line: lineNo, message: 'invalid quotes' });
      return;
    }
    // Only a comment after the keyword (`HostName  # c`): OpenSSH 9.2 says "Missing argument."
    if (args.length === 0) {
      problems.push({ file: file.path, line: lineNo, message: 'Missing argument.' });
      return;
    }
    lines.push({ file: file.path, line: lineNo, keyword: lower, args, rest });
  });
  return { path: file.path, lines, problems };
}

/**
 * OpenSSH's `strdelim`: the next token of `s` from `pos`, and where the one after it starts
 * (null at the end). A `"` quotes up to the next one; with `splitEquals`, one `=` separates too.
 * Returns a null token for an unmatched quote.
 */
export function strdelim(s: string, pos: number, splitEquals: boolean): [string | null, number | null] {
  const delims = splitEquals ? `${WHITESPACE}"=` : `${WHITESPACE}"`;
  let idx = pos;
  while (idx < s.length && !delims.includes(s[idx]!)) idx++;
  if (idx >= s.length) return [s.slice(pos), null];
  if (s[idx] === '"') {
    const close = s.indexOf('"', idx + 1);
    if (close < 0) return [null, null];
    const token = s.slice(pos, idx) + s.slice(idx + 1, close);
    return [token, close + 1 + span(s, close + 1, WHITESPACE)];
  }
  const token = s.slice(pos, idx);
  const wasEquals = splitEquals && s[idx] === '=';
  let next = idx + 1 + span(s, idx + 1, WHITESPACE);
  if (splitEquals && s[next] === '=' && !wasEquals) next += 1 + span(s, next + 1, WHITESPACE);
  return [token, next >= s.length ? s.length : next];
}

/** OpenSSH's `argv_split(…, terminate_on_comment=1)`; null on an unterminated quote. */
export function argvSplit(s: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '#') break;
    let arg = '';
    let quote = '';
    for (; i < s.length; i++) {
      const ch = s[i]!;
      const next = s[i + 1];
      if (ch === '\\') {
        if (next === "'" || next === '"' || next === '\\' || (quote === '' && next === ' ')) {
          i++;
          arg += next;
        } else {
          arg += ch; // an unrecognised escape stays as written
        }
      } else if (quote === '' && (ch === ' ' || ch === '\t')) {
        break;
      } else if (quote === '' && (ch === '"' || ch === "'")) {
        quote = ch;
      } else if (quote !== '' && ch === quote) {
        quote = '';
      } else {
        arg += ch;
      }
    }
    if (quote !== '') return null;
    out.push(arg);
  }
  return out;
}

function span(s: string, from: number, chars: string): number {
  let n = 0;
  while (from + n < s.length && chars.includes(s[from + n]!)) n++;
  return n;
}
