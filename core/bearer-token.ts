import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether an `Authorization` header is `Bearer <token>`. Both sides are hashed first so the
 * comparison is constant time whatever the lengths. Without a configured token nothing matches.
 */
export function bearerTokenMatches(authorization: string | undefined, token: string | undefined): boolean {
  const presented = presentedBearerToken(authorization);
  return Boolean(token && presented && timingSafeEqual(digest(presented), digest(token)));
}

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header or none. */
export function presentedBearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim() || undefined;
}
