/** Bakes under way and their last failures, shared by a provider's launches and bakes (bake.ts). */
import type { VolumeInfo } from '../libvirt-api.js';

/** What a bake made (or found already there). */
export interface BakeResult {
  host: string;
  image: string;
  volume: VolumeInfo;
  /** False when the baked volume was already there. */
  created: boolean;
  recipeHash: string;
  /** Milliseconds the whole bake took. */
  ms: number;
}

/** Bakes under way and the last failure, per host and baked volume: one per provider instance. */
export class BakeRegistry {
  readonly flights = new Map<string, Promise<BakeResult>>();
  readonly failures = new Map<string, string>();
  static key(host: string, volume: string): string {
    return `${host}\0${volume}`;
  }
}
