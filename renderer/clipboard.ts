/** Copying to the clipboard with a toast either way: what every Copy button shares. */
import { errorMessage } from './format.js';
import { useUiStore } from './stores/ui-store.js';

/** Copies `text`; `what` names it in the toast ("the XML of web-1"). */
export async function copyText(text: string, what: string, note = ''): Promise<boolean> {
  const { toast } = useUiStore.getState();
  try {
    await navigator.clipboard.writeText(text);
    toast(`Copied ${what}${note}.`);
    return true;
  } catch (err) {
    toast(
      `Could not copy ${what}: ${errorMessage(err)}. The browser may not allow clipboard access here; allow it for this page, or select and copy by hand.`,
      'error',
    );
    return false;
  }
}
