/**
 * Who may use a serve-mode server: whoever opened the one-time link. The token in the
 * printed URL is exchanged once for an HttpOnly, SameSite=Strict session cookie; after that
 * the token is spent, so a copy of the URL (shell history, a screen share) opens nothing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh secret: 32 random bytes, base64url. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Compares two secrets in constant time (hashing first makes the lengths equal). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Reads one cookie from a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The token, the sessions it was exchanged for, and the origin the server answers as. */
export class ServeAuth {
  /** The one-time token of the printed URL. */
  readonly token = newSecret();
  private tokenSpent = false;
  private readonly sessions = new Set<string>();

  /**
   * @param port the listening port: it names the cookie, because browsers share cookies
   *   across the ports of one host and two servers must not overwrite each other's.
   */
  constructor(readonly port: number) {}

  /** `http://127.0.0.1:PORT`: the only Origin the WebSocket accepts. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The only Host header accepted (a DNS-rebinding page would send its own name). */
  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  get cookieName(): string {
    return `egress-desk-session-${this.port}`;
  }

  /** The printed URL. */
  get url(): string {
    return `${this.origin}/?token=${this.token}`;
  }

  /** Spends the token: a session id on the first correct try, undefined after that. */
  redeem(token: string): string | undefined {
    if (this.tokenSpent || !sameSecret(token, this.token)) return undefined;
    this.tokenSpent = true;
    const session = newSecret();
    this.sessions.add(session);
    return session;
  }

  /** The `Set-Cookie` value for a session: readable by no script, sent to no other site. */
  cookie(session: string): string {
    return `${this.cookieName}=${session}; Path=/; HttpOnly; SameSite=Strict`;
  }

  /** Whether a request's `Cookie` header carries a live session. */
  hasSession(cookieHeader: string | undefined): boolean {
    const value = readCookie(cookieHeader, this.cookieName);
    if (!value) return false;
    for (const s of this.sessions) if (sameSecret(value, s)) return true;
    return false;
  }
}
