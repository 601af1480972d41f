/**
 * The token of an `Authorization: Bearer` header, the one parser of it: `null` without the header or
 * for another scheme, `''` when it names no token, else the token (trimmed).
 */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer(?:\s+(.*))?$/i.exec(header);
  return match === null ? null : (match[1]?.trim() ?? '');
}
