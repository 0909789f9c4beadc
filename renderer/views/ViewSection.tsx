/**
 * A view's frame: a section named by its own heading (so assistive technology announces the
 * view by its title), the heading with a meta line beside it, and the view's body.
 */
import type { ReactNode } from 'react';

export function ViewSection({
  headingId,
  title,
  meta,
  className,
  children,
}: {
  /** The heading's id: the section's name, and any form in the view may name itself by it too. */
  headingId: string;
  title: ReactNode;
  /** Beside the heading in small type (where the view's data lives); nothing while undefined. */
  meta?: ReactNode;
  /** Classes added to `view` (a view's own layout). */
  className?: string;
  children: ReactNode;
}) {
  return (
    <section className={className ? `view ${className}` : 'view'} aria-labelledby={headingId}>
      <div className="view-head">
        <h2 id={headingId}>{title}</h2>
        {meta && <span className="meta">{meta}</span>}
      </div>
      {children}
    </section>
  );
}
