// Ids are signed 64-bit integers in both databases, and X's own are about 2^60: past the 2^53 a
// JavaScript number holds exactly. So an id travels as the model's decimal string; it is bound as a
// number below 2^53 (every generated id, and the cheap case for both drivers) and as a bigint above
// (both drivers bind one as an exact int64); it is read back as text (TWEET_COLUMNS casts, and
// PostgreSQL's BIGINT arrives as text anyway); and it sits in a cursor as a number while that is exact,
// as its digits beyond.
import { type Cursor, ID_CEILING, invalidPageToken, MAX_ID } from "@social/core";
import { CEILING } from "./pages.ts";

/** An id as a statement binds it. */
export type StoredId = number | bigint;

/** A keyset position's parts as statements bind them. */
export type BoundKey = number | bigint;

const CANONICAL_ID = /^(0|[1-9]\d{0,18})$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A model id as the int64 it is stored as; undefined for text that is no stored id (not canonical, or past MAX_ID). */
export function storedId(id: string): StoredId | undefined {
  if (!CANONICAL_ID.test(id)) return undefined;
  if (id.length < 16) return Number(id);
  const value = BigInt(id);
  if (value > MAX_ID) return undefined;
  return value <= MAX_SAFE ? Number(value) : value;
}

/** `id` (text, or a number below 2^53) bound exactly; for ids a database returned, which are stored ids. */
export function boundId(id: string | number): StoredId {
  if (typeof id === "number") return id;
  const stored = storedId(id);
  if (stored === undefined) throw new RangeError(`not a stored id: ${JSON.stringify(id)}`);
  return stored;
}

/** An id a database returned (text, or a number below 2^53) as a cursor holds it. */
export function idKey(id: string | number): number | string {
  if (typeof id === "number") return id;
  return id.length < 16 || BigInt(id) <= MAX_SAFE ? Number(id) : id;
}

/**
 * What a keyset part compares with: an id (int64), a whole number (times, counts) or a double (a
 * community tweet's relevance). Cursors are signed, so each one that arrives is a key some store issued;
 * a part that is not of its kind is a foreign cursor.
 */
export type KeyKind = "id" | "int" | "real";

/** Above every value of a kind: where a newest-first walk starts. */
export const KEY_TOP: Readonly<Record<KeyKind, BoundKey>> = {
  id: ID_CEILING,
  int: CEILING,
  real: Number.MAX_VALUE,
};

function boundKey(value: string | number, kind: KeyKind): BoundKey | undefined {
  switch (kind) {
    case "id":
      return typeof value === "number"
        ? Number.isSafeInteger(value) && value >= 0
          ? value
          : undefined
        : storedId(value);
    case "int":
      return Number.isSafeInteger(value) ? (value as number) : undefined;
    case "real":
      return typeof value === "number" && Number.isFinite(value) ? value : undefined;
  }
}

/**
 * The keyset position to continue after, bound: `after` read part by part as `kinds` says, or `start`
 * (by default the top of every kind) for a first page; any other cursor is a page token no store issued.
 */
export function keysetAfter<Keys extends BoundKey[]>(
  after: Cursor | undefined,
  kinds: { [Index in keyof Keys]: KeyKind },
  start?: Keys,
): Keys {
  if (after === undefined) return start ?? (kinds.map((kind) => KEY_TOP[kind]) as Keys);
  if (after.length !== kinds.length) throw invalidPageToken();
  return after.map((value, index) => {
    const key = boundKey(value, kinds[index] as KeyKind);
    if (key === undefined) throw invalidPageToken();
    return key;
  }) as Keys;
}
