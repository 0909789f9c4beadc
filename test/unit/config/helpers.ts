import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** A fresh copy of the canonical valid config fixture, as plain data. */
export function validConfig(): Record<string, unknown> {
  return parse(readFileSync(new URL('../../fixtures/config/canonical.yaml', import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
}

/** Applies `edit` to a fresh valid config and returns it. */
export function mutate(edit: (c: Record<string, any>) => void): Record<string, unknown> {
  const c = validConfig();
  edit(c);
  return c;
}
