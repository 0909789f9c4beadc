/**
 * Text comparison for sorting, one collator each, made once: `a.localeCompare(b, locale,
 * options)` makes a collator every call, which was most of sorting 1,000 proxies (about 14 ms
 * of the Proxies table's first render; a thousandth of a fleet listing each in the backend).
 */

/** The user's locale's order (what `a.localeCompare(b)` gives). */
export const byText = new Intl.Collator().compare;

/** The same, with runs of digits compared as numbers: `web-2` before `web-10`. */
export const byNumericText = new Intl.Collator(undefined, { numeric: true }).compare;
