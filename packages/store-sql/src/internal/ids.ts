/**
 * Format checks for identifiers that reach SQL from outside (paths, cursors), so that a
 * malformed one finds nothing instead of reaching PostgreSQL as an invalid `uuid` or `bigint`
 * or as `text` with a NUL character (each of which would be an error, not an empty answer). UUIDs
 * are checked by `@voice-agent/core/Uuid`.
 */

/** A positive integer that fits a PostgreSQL `bigint` (contact ids). */
export const isBigintId = (s: string): boolean => /^[1-9]\d{0,18}$/.test(s) && BigInt(s) <= 9_223_372_036_854_775_807n

/** A string PostgreSQL `text` can hold: no NUL character (nothing stored contains one). */
export const isStorableText = (s: string): boolean => !s.includes("\u0000")
