/**
 * The catalog areas of the contract: `machineTypes:*`, `images:*` and `defaults:*`. Lists
 * come from the config (and, for images, the cache and each host's pool); edits go through
 * the shared catalog check and the one config write path; downloads run as tasks.
 */
import { IMAGE_VERIFY_KIND, type ImageVerified } from '../../../shared/image-lookup.js';
import type { ImageView, MachineTypeView } from '../../../shared/images-view.js';
import type { AreaService, ChannelInput, ChannelOutput } from '../../../shared/ipc.js';
import { type CheckedDigest, findCheckedDigest } from '../images/signature.js';
import type { TaskService } from '../tasks/task-service.js';
import type { ConfigWrites } from './config-writes.js';
import { UnknownEntryError } from './errors.js';
import type { FleetAssembly } from './fleet-assembly.js';
import { imagePresence } from './image-presence.js';
import { startBakeTask } from './bake-task.js';

export class MachineTypesArea implements AreaService<'machineTypes'> {
  constructor(private readonly writes: ConfigWrites) {}

  async list(): Promise<MachineTypeView[]> {
    const config = await this.writes.kvm();
    return Object.entries(config.machineTypes).map(([name, m]) => ({
      name,
      ...m,
      isDefault: config.defaults.machineType === name,
    }));
  }

  /** Adds, changes or renames a machine type (a rename moves the default with it). */
  save(input: ChannelInput<'machineTypes:save'>): Promise<{ path: string }> {
    return this.writes.catalog({ op: 'machineType:save', entry: input });
  }

  /** Removes a machine type; refused for the default and for the last one. */
  remove(input: ChannelInput<'machineTypes:remove'>): Promise<{ path: string }> {
    return this.writes.catalog({ op: 'machineType:remove', name: input.name });
  }
}

export class DefaultsArea implements AreaService<'defaults'> {
  constructor(private readonly writes: ConfigWrites) {}

  set(input: ChannelInput<'defaults:set'>): Promise<{ path: string }> {
    return this.writes.catalog({ op: 'defaults:set', ...input });
  }
}

export class ImagesArea implements AreaService<'images'> {
  constructor(
    private readonly backend: () => Promise<FleetAssembly>,
    private readonly writes: ConfigWrites,
    private readonly tasks: TaskService,
    /** The app's keyring directory (`<data dir>/keyrings`), for checking checksum files' signatures. */
    private readonly keyringDir: string,
  ) {}

  async list(): Promise<ImageView[]> {
    const backend = await this.backend();
    const entries = Object.entries(backend.config.images);
    const [cached, partials, presence] = await Promise.all([
      backend.images.list(),
      backend.images.partials(),
      imagePresence(
        backend,
        entries.map(([, image]) => image),
      ),
    ]);
    return entries.map(([name, image], i): ImageView => {
      const view: ImageView = {
        name,
        url: image.url,
        sha256: image.sha256,
        format: image.format,
        isDefault: backend.config.defaults.image === name,
        cache: 'absent',
        hosts: presence[i]!,
      };
      const hit = cached.find((c) => c.sha256 === image.sha256);
      const partial = partials.find((p) => p.sha256 === image.sha256);
      if (hit) return { ...view, cache: 'cached', sizeBytes: hit.size, lastUsed: hit.lastUsed.toISOString() };
      if (partial)
        return {
          ...view,
          cache: 'partial',
          sizeBytes: partial.size,
          ...(partial.total !== undefined ? { totalBytes: partial.total } : {}),
        };
      return view;
    });
  }

  async pull(input: ChannelInput<'images:pull'>): Promise<{ taskId: string }> {
    const backend = await this.backend();
    const image = backend.config.images[input.name];
    if (!image)
      throw new UnknownEntryError(
        `no image named ${JSON.stringify(input.name)} (known: ${Object.keys(backend.config.images).join(', ') || 'none'})`,
      );
    const taskId = this.tasks.run(
      `Pull image ${input.name}`,
      async (ctx) => {
        ctx.step('download', image.url);
        const got = await backend.images.ensure(image, {
          signal: ctx.signal,
          onProgress: (p) => ctx.progress(p.bytes, p.total),
        });
        ctx.stepDone(`${got.size} bytes, sha256 verified`);
        return { name: input.name, sha256: got.sha256, sizeBytes: got.size, path: got.path };
      },
      { kind: 'images:pull', target: input.name },
    );
    return { taskId };
  }

  /** Bakes an image on a host as a task (bake-task.ts); a second Bake of the same pair joins the running one. */
  async bake(input: ChannelInput<'images:bake'>): Promise<{ taskId: string }> {
    return { taskId: startBakeTask(await this.backend(), this.tasks, input.name, input.host) };
  }

  /**
   * What the publisher's checksum file lists for an image, and what checking its signature
   * found; nothing is stored. A BAD signature is an error: its digest is never answered.
   */
  async lookup(input: ChannelInput<'images:lookup'>): Promise<CheckedDigest> {
    return findCheckedDigest(input.url, {
      keyringDir: this.keyringDir,
      ...(input.checksumsUrl !== undefined ? { checksumsUrl: input.checksumsUrl } : {}),
    });
  }

  /**
   * The one download an image listed by SHA-512 only needs before it can be added: checked
   * against the digest the person confirmed, its SHA-256 computed in the same pass (the
   * task's result; the form then saves the entry with it). A mismatch deletes the file.
   */
  async verifySha512(input: ChannelInput<'images:verifySha512'>): Promise<{ taskId: string }> {
    const backend = await this.backend();
    const taskId = this.tasks.run(
      `Check image ${input.name}`,
      async (ctx): Promise<ImageVerified> => {
        ctx.step('download', input.url);
        const got = await backend.images.ensureBySha512(
          { url: input.url, sha512: input.sha512, format: input.format },
          { signal: ctx.signal, onProgress: (p) => ctx.progress(p.bytes, p.total) },
        );
        ctx.stepDone(`${got.size} bytes, sha512 verified; sha256 ${got.sha256}`);
        return { name: input.name, sha256: got.sha256, sizeBytes: got.size };
      },
      { kind: IMAGE_VERIFY_KIND, target: input.name },
    );
    return { taskId };
  }

  /** Base volumes on the hosts nothing uses, with what is kept and why (the same judgement as `images prune --hosts`). */
  async unusedBases(): Promise<ChannelOutput<'images:unusedBases'>> {
    return (await this.backend()).provider.unusedBases();
  }

  /** Removes the bases the person confirmed; the provider judges each again just before removing it. */
  async pruneBases(input: ChannelInput<'images:pruneBases'>): Promise<ChannelOutput<'images:pruneBases'>> {
    return (await this.backend()).provider.removeBases(input.bases);
  }

  /** Adds, changes or renames an image entry. */
  save(input: ChannelInput<'images:save'>): Promise<{ path: string }> {
    return this.writes.catalog({ op: 'image:save', entry: input });
  }

  /** Removes an image entry (refused for the default). The cached file stays: the cache is keyed by digest, not name. */
  remove(input: ChannelInput<'images:remove'>): Promise<{ path: string }> {
    return this.writes.catalog({ op: 'image:remove', name: input.name });
  }
}
