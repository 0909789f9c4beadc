/**
 * A table's head row of plain column names, each a column header by scope, so every table of
 * the app names its columns the same way for assistive technology.
 */
import type { ReactNode } from 'react';

/** `<thead>` with one `<th scope="col">` per name; `children` are further header cells that are more than a name. */
export function ColumnHeads({ names, children }: { names: readonly string[]; children?: ReactNode }) {
  return (
    <thead>
      <tr>
        {names.map((n) => (
          <th key={n} scope="col">
            {n}
          </th>
        ))}
        {children}
      </tr>
    </thead>
  );
}
