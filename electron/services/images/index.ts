/** The image cache's public surface (see image-cache.ts for the layout on disk). */
export * from './errors.js';
export {
  BadSignatureError,
  type DigestAlgorithm,
  findPublishedDigest,
  parseSums,
  type PublishedDigest,
  PublisherDigestError,
  type SumsEntry,
} from './checksums.js';
export { type CheckedDigest, findCheckedDigest, type SignatureOptions } from './signature.js';
export * from './image-cache.js';
export type { ImageProgress } from './progress.js';
