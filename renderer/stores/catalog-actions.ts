/**
 * What the Images & machine types view asks of the backend. Edits are config writes
 * (through the config store's `write`: they resolve once the catalog shows them); a pull or
 * a bake starts a task, whose end the config store follows; the rest answer a question and
 * change nothing the stores hold.
 */
import type { ChannelInput, ChannelOutput, EgressApi } from '../../shared/ipc.js';
import { useAppConfigStore } from './app-config-store.js';
import { storeApi } from './store-api.js';

/** A catalog entry kind, as the view names it. */
export type CatalogKind = 'machineType' | 'image';

const write = <T>(call: (api: EgressApi) => Promise<T>): Promise<T> => useAppConfigStore.getState().write(call);

/** Adds or edits (renames, with `previousName`) a machine type. */
export const saveMachineType = (entry: ChannelInput<'machineTypes:save'>) => write((api) => api.machineTypes.save(entry));

/** Adds or edits (renames, with `previousName`) an image. */
export const saveImage = (entry: ChannelInput<'images:save'>) => write((api) => api.images.save(entry));

/** Takes an entry out of the config (the person confirmed). */
export const removeCatalogEntry = (kind: CatalogKind, name: string) =>
  write((api) => (kind === 'machineType' ? api.machineTypes.remove({ name, confirm: true }) : api.images.remove({ name, confirm: true })));

/** Makes an entry the default of its kind. */
export const setCatalogDefault = (kind: CatalogKind, name: string) => write((api) => api.defaults.set(kind === 'machineType' ? { machineType: name } : { image: name }));

/** Starts pulling an image into the cache (a task: the tasks store follows it). */
export const pullImage = (name: string) => storeApi().images.pull({ name });

/** Starts baking an image on a host (a task). */
export const bakeImage = (name: string, host: string) => storeApi().images.bake({ name, host });

/** Reads the publisher's checksum file for an image URL. */
export const lookupImage = (input: ChannelInput<'images:lookup'>): Promise<ChannelOutput<'images:lookup'>> => storeApi().images.lookup(input);

/** Starts downloading an image listed by SHA-512 only, to compute its SHA-256 (a task). */
export const verifySha512 = (input: ChannelInput<'images:verifySha512'>) => storeApi().images.verifySha512(input);

/** The base volumes on the hosts that no proxy uses (nothing changes). */
export const findUnusedBases = (): Promise<ChannelOutput<'images:unusedBases'>> => storeApi().images.unusedBases();

/** Removes the confirmed base volumes (each judged again first). */
export const pruneBases = (bases: ChannelInput<'images:pruneBases'>['bases']): Promise<ChannelOutput<'images:pruneBases'>> => storeApi().images.pruneBases({ bases, confirm: true });
