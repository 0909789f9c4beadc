/** An image's sha256, short with the full digest on hover, and a Copy button. */
import { errorMessage } from '../format.js';
import { useUiStore } from '../stores/ui-store.js';

/** The digest of the image `name` (the Copy button's accessible name says it). */
export function ImageDigest({ sha256, name }: { sha256: string; name: string }) {
  const toast = useUiStore((s) => s.toast);
  async function copy() {
    try {
      await navigator.clipboard.writeText(sha256);
      toast(`Copied the sha256 of ${name}.`);
    } catch (err) {
      toast(`Could not copy the digest: ${errorMessage(err)}`, 'error');
    }
  }
  return (
    <span className="digest">
      <code title={sha256} aria-label={`sha256 ${sha256}`}>
        {sha256.slice(0, 12)}…
      </code>
      <button type="button" className="small" aria-label={`Copy the sha256 of ${name}`} onClick={() => void copy()}>
        Copy
      </button>
    </span>
  );
}
