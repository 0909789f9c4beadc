/** Whether each connected host has an image's base volume, with a Bake per host (ImageBake.tsx). */
import type { ImagePresence } from '../../shared/images-view.js';
import { ImageBake } from './ImageBake.js';

const PRESENCE_TEXT: Record<ImagePresence['present'], string> = {
  yes: 'uploaded',
  no: 'not uploaded',
  unknown: 'unknown',
};

/** The image's base volume on each host it was asked of; a dash when no host was. */
export function ImageOnHosts({ hosts, image }: { hosts: ImagePresence[] | undefined; image: string }) {
  if (!hosts?.length) return <span className="meta">—</span>;
  return (
    <ul className="presence" aria-label="On hosts">
      {hosts.map((h) => (
        <li
          key={h.host}
          className={`presence-${h.present}`}
          title={h.volume ?? h.message ?? (h.present === 'no' ? 'The first launch there uploads it' : undefined)}
        >
          <span className="presence-host">{h.host}</span>: {PRESENCE_TEXT[h.present]}
          <ImageBake image={image} presence={h} />
        </li>
      ))}
    </ul>
  );
}
