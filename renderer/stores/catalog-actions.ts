/**
 * What the Images & machine types view asks of the backend. Edits are config writes
 * (through the config store's `write`: they resolve once the catalog shows them); a pull or
 * a bake starts a task, whose end the config store follows (learning an image's SHA-256
 * waits for its task's end itself); the rest answer a question and change nothing the
 * stores hold.
 */
import { ImageVerifiedSchema } from '../../shared/image-lookup.js';
import type { ChannelInput, ChannelOutput, EgressApi } from '../../shared/ipc.js';
import { useAppConfigStore } from './app-config-store.js';
import { storeApi } from './store-api.js';
import { taskEnded } from './tasks-store.js';

/** A catalog entry kind, as the view names it. */
export type CatalogKind = 'machineType' | 'image';

const write = <T>(call: (api: EgressApi) => Promise<T>): Promise<T> => useAppConfigStore.getState().write(call);

/** Adds or edits (renames, with `previousName`) a machine type. */
export const saveMachineType = (entry: ChannelInput<'machineTypes:save'>) =>
  write((api) => api.machineTypes.save(entry));

/** Adds or edits (renames, with `previousName`) an image. */
export const saveImage = (entry: ChannelInput<'images:save'>) => write((api) => api.images.save(entry));

/** Takes an entry out of the config (the person confirmed). */
export const removeCatalogEntry = (kind: CatalogKind, name: string) =>
  write((api) =>
    kind === 'machineType'
      ? api.machineTypes.remove({ name, confirm: true })
      : api.images.remove({ name, confirm: true }),
  );

/** Makes an entry the default of its kind. */
export const setCatalogDefault = (kind: CatalogKind, name: string) =>
  write((api) => api.defaults.set(kind === 'machineType' ? { machineType: name } : { image: name }));

/** Starts pulling an image into the cache (a task: the tasks store follows it). */
export const pullImage = (name: string) => storeApi().images.pull({ name });

/** Starts baking an image on a host (a task). */
export const bakeImage = (name: string, host: string) => storeApi().images.bake({ name, host });

/** Reads the publisher's checksum file for an image URL. */
export const lookupImage = (input: ChannelInput<'images:lookup'>): Promise<ChannelOutput<'images:lookup'>> =>
  storeApi().images.lookup(input);

/**
 * The SHA-256 of an image published with a SHA-512 only: starts `images:verifySha512`
 * (a task that downloads the image once and checks it; `started` is told its id, so that
 * its progress can be shown), waits for its end in the tasks store, and answers the
 * SHA-256 it learned. Rejects with what the task said when it did not succeed (a mismatch
 * names both digests).
 */
export async function learnSha256(
  input: ChannelInput<'images:verifySha512'>,
  started: (taskId: string) => void,
): Promise<string> {
  const { taskId } = await storeApi().images.verifySha512(input);
  started(taskId);
  const done = await taskEnded(taskId);
  if (done.state !== 'succeeded') throw new Error(done.error?.message ?? done.message ?? `the check was ${done.state}`);
  return ImageVerifiedSchema.parse(done.result).sha256;
}

/** The base volumes on the hosts that no proxy uses (nothing changes). */
export const findUnusedBases = (): Promise<ChannelOutput<'images:unusedBases'>> => storeApi().images.unusedBases();

/** Removes the confirmed base volumes (each judged again first). */
export const pruneBases = (
  bases: ChannelInput<'images:pruneBases'>['bases'],
): Promise<ChannelOutput<'images:pruneBases'>> => storeApi().images.pruneBases({ bases, confirm: true });
