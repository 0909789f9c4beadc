/** A small JSON file of the data directory read against its schema (window state, app settings). */
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';

/**
 * The file's content, or undefined when there is none or it cannot be used (unreadable,
 * not JSON, or not the schema: a hand-edited or truncated file is ignored, and the next
 * save replaces it).
 */
export async function readJsonFile<S extends z.ZodType>(file: string, schema: S): Promise<z.output<S> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
