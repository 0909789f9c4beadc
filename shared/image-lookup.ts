/**
 * Adding an image as its publisher publishes it, over IPC: `images:lookup` reads the
 * checksum file beside the URL (or the one named), checks its signature, and answers what
 * it lists and what the check found, for the form to show (a BAD signature is an error); `images:verifySha512` is the one download an image listed by SHA-512 only needs
 * (a task), whose result is the SHA-256 the config then stores.
 */
import { z } from 'zod';
import { EntryNameSchema } from './catalog-edit.js';
import { DISK_FORMATS, KVMImageSchema } from './config.js';
import { SignatureCheckSchema } from './signature.js';
import type { TaskKind } from './tasks.js';

/** `images:lookup`: the image's URL, and the checksum file to read when not the one beside it. */
export const ImageLookupSchema = z.strictObject({
  url: KVMImageSchema.shape.url,
  checksumsUrl: z.string().min(1).max(2048).optional(),
});

/** What the checksum file lists for the image, and what checking its signature found. */
export const PublishedDigestSchema = z.object({
  algorithm: z.enum(['sha256', 'sha512']),
  digest: z.string(),
  /** The checksum file it was read from. */
  sumsUrl: z.string(),
  /** The name it is listed under. */
  listedName: z.string(),
  /** Only `verified` means gpgv checked the publisher's signature (shared/signature.ts). */
  signature: SignatureCheckSchema,
});
export type PublishedDigestView = z.infer<typeof PublishedDigestSchema>;

/** `images:verifySha512`: download the image, check the SHA-512 the person confirmed, learn its SHA-256. */
export const ImageVerifySchema = z.strictObject({
  name: EntryNameSchema,
  url: KVMImageSchema.shape.url,
  sha512: z.string().regex(/^[0-9a-f]{128}$/, 'must be 128 lowercase hexadecimal characters'),
  format: z.enum(DISK_FORMATS),
});

/** The task kind of `images:verifySha512`; its result is {@link ImageVerifiedSchema}. */
export const IMAGE_VERIFY_KIND = 'images:verify' satisfies TaskKind;

export const ImageVerifiedSchema = z.object({ name: z.string(), sha256: z.string(), sizeBytes: z.number() });
export type ImageVerified = z.infer<typeof ImageVerifiedSchema>;
