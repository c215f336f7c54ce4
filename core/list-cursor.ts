/**
 * The opaque cursor of a merchant list ordered newest first (orders, events): where the previous
 * page stopped, as the position of its last item, its creation time and then its id. The time is
 * kept in microseconds, PostgreSQL's precision: a millisecond Date would skip or repeat items created
 * within the same millisecond. Each list has its own version tag, so one list's cursor is refused by
 * another.
 */
export interface ListPosition {
  /** Creation time of the page's last item, in microseconds since the epoch, as decimal digits. */
  createdAtMicros: string;
  id: string;
}

const MICROS = /^\d{1,19}$/;
const LATEST_MICROS = BigInt(Number.MAX_SAFE_INTEGER) * 1000n;

export function listCursor(version: string, idPattern: RegExp) {
  return {
    encode(position: ListPosition): string {
      return Buffer.from(`${version}.${position.createdAtMicros}.${position.id}`, 'utf8').toString('base64url');
    },
    /** The position, or undefined for anything this API did not hand out (a cursor is never trusted as SQL). */
    decode(value: string): ListPosition | undefined {
      if (value.length > 200 || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
      const [tag, createdAtMicros, id, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('.');
      if (tag !== version || rest.length > 0 || !createdAtMicros || !id) return undefined;
      if (!MICROS.test(createdAtMicros) || BigInt(createdAtMicros) > LATEST_MICROS || !idPattern.test(id)) return undefined;
      return { createdAtMicros, id };
    },
  };
}
