/** Small text checks shared by every builder and schema that takes user input. */

// Control characters break single-line formats (XML attributes, config lines, logs); the
// regex is the check itself, so the lint rule against control characters does not apply.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** True when `text` holds a control character (newline and tab included). */
export function hasControlCharacters(text: string): boolean {
  return CONTROL_CHARACTERS.test(text);
}
