/** Machine types and images as the renderer lists them: the config's entries plus local cache state. */
import { z } from 'zod';

export const MachineTypeViewSchema = z.object({
  name: z.string(),
  vcpus: z.number(),
  memoryMiB: z.number(),
  diskGiB: z.number(),
  /** The config's `defaults.machineType`. */
  isDefault: z.boolean(),
});
export type MachineTypeView = z.infer<typeof MachineTypeViewSchema>;

/**
 * Whether an image's base volume (named by its digest) is in one host's pool: `unknown`
 * when the host is not connected or its pool could not be listed (`message` says why),
 * never guessed as absent.
 */
export const ImagePresenceSchema = z.object({
  host: z.string(),
  present: z.enum(['yes', 'no', 'unknown']),
  /** The base volume's name, when present. */
  volume: z.string().optional(),
  message: z.string().optional(),
  /**
   * `baked`: the host has the image's baked base (egress-baked-…, launches there install
   * nothing); `plain`: it has not (launches install the proxy software at first boot).
   * Absent when the pool could not be listed.
   */
  base: z.enum(['baked', 'plain']).optional(),
  /** The baked base volume's name, when baked. */
  bakedVolume: z.string().optional(),
});
export type ImagePresence = z.infer<typeof ImagePresenceSchema>;

export const ImageViewSchema = z.object({
  name: z.string(),
  url: z.string(),
  sha256: z.string(),
  format: z.enum(['qcow2', 'raw']),
  isDefault: z.boolean(),
  /** In the local cache and verified, or a partial download, or absent. */
  cache: z.enum(['cached', 'partial', 'absent']),
  /** Bytes on disk (the verified image, or the partial so far). */
  sizeBytes: z.number().optional(),
  /** The partial's expected size, when the server said it. */
  totalBytes: z.number().optional(),
  lastUsed: z.string().optional(),
  /** Per configured host, in config order: is the base volume uploaded there? */
  hosts: z.array(ImagePresenceSchema).optional(),
});
export type ImageView = z.infer<typeof ImageViewSchema>;

/** A base volume on a host that nothing uses (`images:unusedBases`): a candidate for removal. */
export const UnusedBaseSchema = z.strictObject({
  host: z.string(),
  pool: z.string(),
  volume: z.string(),
  bytes: z.number(),
});
export type UnusedBaseView = z.infer<typeof UnusedBaseSchema>;

/** What `images:unusedBases` found: what could go, what stays and why, and the hosts it could not ask. */
export const BasePruneReportSchema = z.object({
  unused: z.array(UnusedBaseSchema),
  kept: z.array(z.object({ host: z.string(), pool: z.string(), volume: z.string(), why: z.string() })),
  unreachable: z.array(z.object({ host: z.string(), error: z.string() })),
});

/** `images:pruneBases`: the bases the person confirmed (each judged again before removal). */
export const BasePruneInputSchema = z.strictObject({
  bases: z.array(UnusedBaseSchema).min(1).max(1000),
  confirm: z.literal(true, { error: 'removing base volumes needs confirm: true' }),
});
export const BasePruneResultSchema = BasePruneReportSchema.pick({ kept: true }).extend({
  removed: z.array(UnusedBaseSchema),
});
