/**
 * Typed failures of the image cache. Each message is a complete sentence a person can act
 * on (what happened, and whether the next attempt resumes), so that every front end can
 * show it as it is: the CLI on one line, the app in a task's error.
 */

/** Base class: `instanceof ImageCacheError` tells a cache failure from a bug. */
export class ImageCacheError extends Error {
  override readonly name: string = 'ImageCacheError';
}

/** The downloaded bytes do not have the expected digest (the config's sha256, or a publisher's sha512). The bad file has been deleted. */
export class ImageDigestMismatchError extends ImageCacheError {
  override readonly name = 'ImageDigestMismatchError';
  constructor(
    readonly expected: string,
    readonly actual: string,
    readonly url: string,
    readonly bytes: number,
    readonly algorithm: 'sha256' | 'sha512' = 'sha256',
  ) {
    super(
      `the image from ${url} has ${algorithm} ${actual} but ${expected} was expected (${bytes} bytes); the download was deleted and is not used. ` +
        (algorithm === 'sha256'
          ? "Check the digest in the config against the publisher's checksum file."
          : "The publisher's checksum file lists another file than the server sent (it changed since, or the transfer was corrupted): try again."),
    );
  }
}

/** No byte arrived for the stall timeout. The partial download is kept and the next attempt resumes. */
export class ImageDownloadStalledError extends ImageCacheError {
  override readonly name = 'ImageDownloadStalledError';
  constructor(
    readonly url: string,
    readonly timeoutMs: number,
    readonly bytes: number,
  ) {
    super(
      `no data from ${url} for ${formatSeconds(timeoutMs)} (after ${bytes} bytes); the partial download is kept and the next attempt resumes from there`,
    );
  }
}

/** The connection failed or closed early. The partial download is kept and the next attempt resumes. */
export class ImageDownloadNetworkError extends ImageCacheError {
  override readonly name = 'ImageDownloadNetworkError';
  constructor(
    readonly url: string,
    readonly reason: string,
    readonly bytes: number,
    options?: { cause?: unknown },
  ) {
    super(
      `downloading ${url} failed after ${bytes} bytes: ${reason}; the partial download is kept and the next attempt resumes from there`,
      options,
    );
  }
}

/** Every caller of a download cancelled it. The partial download is kept. */
export class ImageDownloadCancelledError extends ImageCacheError {
  override readonly name = 'ImageDownloadCancelledError';
  constructor(readonly url: string) {
    super(`the download of ${url} was cancelled; the partial download is kept and the next attempt resumes from there`);
  }
}

/** The server (or the file system, for file:// URLs) has no image at the URL. */
export class ImageNotFoundError extends ImageCacheError {
  override readonly name = 'ImageNotFoundError';
  constructor(readonly url: string) {
    super(`the image was not found at ${url}${url.startsWith('file:') ? '' : ' (HTTP 404)'}`);
  }
}

/** The server answered with an error status other than 404. */
export class ImageHttpError extends ImageCacheError {
  override readonly name = 'ImageHttpError';
  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
  ) {
    super(`HTTP ${status}${statusText ? ` ${statusText}` : ''} from ${url}`);
  }
}

/** The URL cannot be downloaded by the cache (scheme, syntax, not a file). */
export class ImageUrlError extends ImageCacheError {
  override readonly name = 'ImageUrlError';
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot download ${url}: ${reason}`);
  }
}

/** The image is larger than the cache accepts (by Content-Length, or by the bytes received). */
export class ImageTooLargeError extends ImageCacheError {
  override readonly name = 'ImageTooLargeError';
  constructor(
    readonly url: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super(
      `the image at ${url} is ${size} bytes or more, over the cache's limit of ${limit} bytes; it was not downloaded`,
    );
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
