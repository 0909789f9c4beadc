/**
 * A short list of well-known cloud images, as their publishers publish them: where the
 * image is and which checksum file lists it. Offered by the app's Add image form and by
 * `egress-desk images add --list`; adding one still reads the checksum file and asks.
 *
 * These are "latest" URLs: the publisher replaces the file behind them with each rebuild.
 * The config stores the digest read on the day the image was added, so a later pull of a
 * rebuilt file fails its check (and is deleted); adding the image again with --replace
 * (or Edit in the app) takes the new digest. Tests never contact these addresses.
 */

export interface KnownImage {
  /** The name suggested for the config entry (a valid entry name). */
  name: string;
  title: string;
  url: string;
  /** The checksum file that lists it. */
  checksumsUrl: string;
  format: 'qcow2' | 'raw';
  /** Which digest the publisher lists: a SHA-512 means one download at add time to learn the SHA-256. */
  publishes: 'sha256' | 'sha512';
}

export const KNOWN_IMAGES: readonly KnownImage[] = [
  {
    name: 'debian-13',
    title: 'Debian 13 (trixie) genericcloud, amd64',
    url: 'https://cloud.debian.org/images/cloud/trixie/latest/debian-13-genericcloud-amd64.qcow2',
    checksumsUrl: 'https://cloud.debian.org/images/cloud/trixie/latest/SHA512SUMS',
    format: 'qcow2',
    publishes: 'sha512',
  },
  {
    name: 'debian-12',
    title: 'Debian 12 (bookworm) genericcloud, amd64',
    url: 'https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2',
    checksumsUrl: 'https://cloud.debian.org/images/cloud/bookworm/latest/SHA512SUMS',
    format: 'qcow2',
    publishes: 'sha512',
  },
  {
    name: 'ubuntu-24.04-minimal',
    title: 'Ubuntu 24.04 LTS (noble) minimal, amd64',
    url: 'https://cloud-images.ubuntu.com/minimal/releases/noble/release/ubuntu-24.04-minimal-cloudimg-amd64.img',
    checksumsUrl: 'https://cloud-images.ubuntu.com/minimal/releases/noble/release/SHA256SUMS',
    // Ubuntu's .img files are qcow2 images.
    format: 'qcow2',
    publishes: 'sha256',
  },
  {
    name: 'ubuntu-24.04',
    title: 'Ubuntu 24.04 LTS (noble) server, amd64',
    url: 'https://cloud-images.ubuntu.com/releases/noble/release/ubuntu-24.04-server-cloudimg-amd64.img',
    checksumsUrl: 'https://cloud-images.ubuntu.com/releases/noble/release/SHA256SUMS',
    format: 'qcow2',
    publishes: 'sha256',
  },
  {
    name: 'rocky-9',
    title: 'Rocky Linux 9 GenericCloud Base, x86_64',
    url: 'https://dl.rockylinux.org/pub/rocky/9/images/x86_64/Rocky-9-GenericCloud-Base.latest.x86_64.qcow2',
    checksumsUrl:
      'https://dl.rockylinux.org/pub/rocky/9/images/x86_64/Rocky-9-GenericCloud-Base.latest.x86_64.qcow2.CHECKSUM',
    format: 'qcow2',
    publishes: 'sha256',
  },
];

/** The built-in image of this name, if any. */
export function knownImage(name: string): KnownImage | undefined {
  return KNOWN_IMAGES.find((k) => k.name === name);
}

/**
 * A publisher whose checksum files are signed, and where a workstation may already hold
 * its keys. A checksum file is matched to its publisher by its URL; the app's own keyring
 * directory (`<data dir>/keyrings`) is used for every publisher, known here or not.
 */
export interface PublisherKeyrings {
  name: string;
  /** URL prefixes of the checksum files it publishes. */
  urlPrefixes: readonly string[];
  /** Keyring files (binary OpenPGP or keybox) a Debian or Ubuntu workstation may have. */
  keyrings: readonly string[];
  /** The Debian package that installs them. */
  package?: string;
}

export const PUBLISHER_KEYRINGS: readonly PublisherKeyrings[] = [
  {
    name: 'Debian',
    urlPrefixes: ['https://cloud.debian.org/'],
    // Debian's CD signing keys are role keys in the package debian-keyring. Only the role keys:
    // debian-keyring.gpg beside them holds every developer's key, and a checksum file signed by
    // any one developer is not what Debian published. Which key signed is gpgv's to say (VALIDSIG).
    keyrings: ['/usr/share/keyrings/debian-role-keys.gpg'],
    package: 'debian-keyring',
  },
  {
    name: 'Ubuntu',
    urlPrefixes: ['https://cloud-images.ubuntu.com/'],
    keyrings: ['/usr/share/keyrings/ubuntu-cloudimage-keyring.gpg'],
    package: 'ubuntu-cloudimage-keyring',
  },
  // Fedora and Rocky clearsign their CHECKSUM files; Debian ships no keyring of theirs: the app's directory holds it.
  {
    name: 'Fedora',
    urlPrefixes: ['https://download.fedoraproject.org/', 'https://dl.fedoraproject.org/'],
    keyrings: [],
  },
  {
    name: 'Rocky Linux',
    urlPrefixes: ['https://dl.rockylinux.org/', 'https://download.rockylinux.org/'],
    keyrings: [],
  },
];

/** The publisher of the checksum file at `url`, if it is a known one. */
export function publisherOf(url: string): PublisherKeyrings | undefined {
  return PUBLISHER_KEYRINGS.find((p) => p.urlPrefixes.some((prefix) => url.startsWith(prefix)));
}
