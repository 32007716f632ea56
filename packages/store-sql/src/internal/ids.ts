/**
 * Format checks for identifiers that reach SQL from outside (paths, cursors), so that a
 * malformed one finds nothing instead of reaching PostgreSQL as an invalid `uuid` or `bigint`
 * or as `text` with a NUL character (each of which would be an error, not an empty answer). UUIDs
 * are checked by `@voice-agent/core/Uuid`, contact and delivery ids by `@voice-agent/core/SerialId`.
 */

/** A string PostgreSQL `text` can hold: no NUL character (nothing stored contains one). */
export const isStorableText = (s: string): boolean => !s.includes("\u0000")
