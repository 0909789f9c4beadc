/**
 * Copies a proxy's URL (credentials included) to the clipboard, with a toast either way.
 * The URL is fetched on demand (`proxies:url`, the one channel that returns the secret)
 * and never rendered into the page.
 */
import { copyText } from './clipboard.js';
import { errorMessage } from './format.js';
import { proxyUrl } from './stores/proxy-actions.js';
import { useUiStore } from './stores/ui-store.js';

export async function copyProxyUrl(name: string): Promise<boolean> {
  const { toast } = useUiStore.getState();
  try {
    const { url } = await proxyUrl(name);
    if (!url) {
      toast(`${name} has no address yet: wait until it has booted, then copy again.`, 'error');
      return false;
    }
    return await copyText(url, `the URL of ${name}`, ' (it includes the password)');
  } catch (err) {
    toast(`Could not copy the URL of ${name}: ${errorMessage(err)}`, 'error');
    return false;
  }
}
