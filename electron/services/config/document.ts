/**
 * Reading and writing configuration documents: YAML (the operator's format) and JSON.
 * One parser serves both: YAML 1.2 is a superset of JSON, and it reports the line and
 * column of every syntax error, which is what a person needs to fix a file.
 */
import { stat, readFile } from 'node:fs/promises';
import { type ParseError, parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import { type Document, LineCounter, isCollection, parseDocument, stringify, visit } from 'yaml';
import { z } from 'zod';
import {
  type ConfigIssue,
  type ProviderConfig,
  ProviderConfigSchema,
  formatIssue,
  validateProviderConfig,
} from '../../../shared/config.js';
import { messageOf } from '../../../shared/errors.js';

/** Config files are small; anything larger is a mistake (a disk image, a log) and is refused unread. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** A document could not be read or parsed. The CLI exits 2 for these. */
export class ConfigReadError extends Error {
  override readonly name = 'ConfigReadError';
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly position?: { line: number; column: number },
  ) {
    super(`${file}: ${position ? `line ${position.line}, column ${position.column}: ` : ''}${reason}`);
  }
}

/** A document parsed but is not a valid ProviderConfig. The CLI exits 1 for these. */
export class ConfigInvalidError extends Error {
  override readonly name = 'ConfigInvalidError';
  constructor(
    readonly file: string,
    readonly issues: ConfigIssue[],
  ) {
    super(`${file}: ${issues.length} problem${issues.length === 1 ? '' : 's'}:\n${issues.map(formatIssue).join('\n')}`);
  }
}

/** Parses YAML or JSON text into plain data. Throws {@link ConfigReadError} with a position. */
export function parseConfigText(text: string, file: string): unknown {
  if (text.trim() === '') throw new ConfigReadError(file, 'the file is empty');
  // A .json file is held to JSON's rules (YAML would accept `"kvm": }` as null).
  if (file.toLowerCase().endsWith('.json')) return parseJson(text, file);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, strict: true, schema: 'core', lineCounter });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) {
    const pos = problem.linePos?.[0];
    // Pretty errors end their first line with " at line L, column C:"; the position is reported separately.
    const reason = (problem.message.split('\n')[0] ?? problem.message).replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigReadError(file, reason, pos ? { line: pos.line, column: pos.col } : undefined);
  }
  const collectionKey = collectionKeyAt(doc);
  if (collectionKey !== undefined) {
    const pos = lineCounter.linePos(collectionKey);
    // Such a key would become "[ a, b ]" as text (with a warning printed to stderr): no config field is named like that.
    throw new ConfigReadError(file, 'a map key must be a single value, not a list or a map', {
      line: pos.line,
      column: pos.col,
    });
  }
  try {
    // maxAliasCount bounds alias expansion ("billion laughs"): a small file cannot become a huge object.
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // Resolving aliases fails here, after parsing, without a position of its own: name the line of the alias at fault.
    const at = aliasAtFault(doc);
    const pos = at === undefined ? undefined : lineCounter.linePos(at);
    throw new ConfigReadError(file, messageOf(err), pos ? { line: pos.line, column: pos.col } : undefined);
  }
}

/** The offset of the first map key that is itself a list or a map (`? [a, b]: c`, `{[a]: b}`), if any. */
function collectionKeyAt(doc: Document): number | undefined {
  let at: number | undefined;
  visit(doc, {
    Pair(_key, pair) {
      if (isCollection(pair.key)) {
        at = pair.key.range?.[0] ?? 0;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return at;
}

/**
 * Where the document's alias problem is: the first alias whose anchor is not defined before
 * it, else (too many aliases to expand) the first alias. An offset into the text.
 */
function aliasAtFault(doc: Document): number | undefined {
  let first: number | undefined;
  let unresolved: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      const start = node.range?.[0];
      if (start === undefined) return undefined;
      first ??= start;
      if (node.resolve(doc) === undefined) {
        unresolved = start;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return unresolved ?? first;
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    // JSON.parse on Node 20 often names no position; jsonc-parser (strict mode) finds it.
    const errors: ParseError[] = [];
    parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    if (!first) throw new ConfigReadError(file, messageOf(err));
    const before = text.slice(0, first.offset).split('\n');
    const reason = printParseErrorCode(first.error)
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
    throw new ConfigReadError(file, `invalid JSON: ${reason}`, {
      line: before.length,
      column: before[before.length - 1]!.length + 1,
    });
  }
}

/** Reads a config file, refusing directories, special files and oversized files before reading them. */
export async function readConfigFile(file: string): Promise<unknown> {
  let info;
  try {
    info = await stat(file);
  } catch (err) {
    throw new ConfigReadError(file, describeFsError(err));
  }
  if (info.isDirectory()) throw new ConfigReadError(file, 'is a directory, not a config file');
  if (!info.isFile()) throw new ConfigReadError(file, 'is not a regular file');
  if (info.size > MAX_CONFIG_BYTES) {
    throw new ConfigReadError(
      file,
      `is ${info.size} bytes; config files are limited to ${MAX_CONFIG_BYTES / 1024} KiB`,
    );
  }
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigReadError(file, describeFsError(err));
  }
  if (text.includes('\u0000')) throw new ConfigReadError(file, 'is a binary file, not YAML or JSON');
  return parseConfigText(text, file);
}

/** Reads and validates a config file. */
export async function loadConfigFile(file: string): Promise<ProviderConfig> {
  const raw = await readConfigFile(file);
  const result = validateProviderConfig(raw);
  if (!result.ok) throw new ConfigInvalidError(file, result.issues);
  return result.config;
}

/** Turns a node:fs error into a sentence. */
export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory, not a config file';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    default:
      return messageOf(err);
  }
}

/**
 * Rebuilds `value` with object keys in the order the schema declares them, so that
 * output is canonical whatever order the input used. Map (record) entries keep their order.
 */
export function orderBySchema(value: unknown, schema: z.ZodType): unknown {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional) s = s.unwrap() as z.ZodType;
  if (Array.isArray(value)) {
    return s instanceof z.ZodArray ? value.map((v) => orderBySchema(v, s.element as z.ZodType)) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const obj = value as Record<string, unknown>;
  if (s instanceof z.ZodRecord) {
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, orderBySchema(v, s.valueType as z.ZodType)]));
  }
  if (s instanceof z.ZodObject) {
    const shape = s.shape as Record<string, z.ZodType>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(shape)) {
      if (obj[key] !== undefined) out[key] = orderBySchema(obj[key], shape[key]!);
    }
    return out;
  }
  return value;
}

export type ExportFormat = 'operator' | 'json';

/** Serialises a config canonically: operator YAML (the default) or JSON. */
export function serializeConfig(config: ProviderConfig, format: ExportFormat = 'operator'): string {
  const ordered = orderBySchema(config, ProviderConfigSchema);
  if (format === 'json') return `${JSON.stringify(ordered, null, 2)}\n`;
  return stringify(ordered, { lineWidth: 0, indent: 2, aliasDuplicateObjects: false });
}
