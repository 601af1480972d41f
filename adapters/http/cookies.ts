/** The value of cookie `name` in a `Cookie` header (unquoted), as the `cookies` package reads it. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  const value = new RegExp(`(?:^|;) *${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=([^;]*)`).exec(header)?.[1];
  return value !== undefined && value.startsWith('"') ? value.slice(1, -1) : value;
}

/** What a `Set-Cookie` says besides the name and value. */
export interface CookieOptions {
  path: string;
  /** When it ends, in ms since the epoch. */
  expires: number;
  secure: boolean;
}

/**
 * A `Set-Cookie` value for an `HttpOnly`, `SameSite=Strict` cookie, written as Koa's `cookies` package
 * writes it (attribute names in lower case, in its order).
 */
export function setCookie(name: string, value: string, { path, expires, secure }: CookieOptions): string {
  return (
    `${name}=${value}; path=${path}; expires=${new Date(expires).toUTCString()}; samesite=strict` +
    `${secure ? '; secure' : ''}; httponly`
  );
}
