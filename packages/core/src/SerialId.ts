/**
 * Identifiers the database numbers (contacts, webhook deliveries): a positive integer that fits
 * a PostgreSQL `bigint`, written in decimal without sign or leading zeros, as the API answers
 * them. Owns the one shape check that such ids from outside (paths, cursors) pass before they
 * reach storage: anything else ("0", "0123", "-1", "1.5", "abc", 20 digits) names nothing, so a
 * request for it finds nothing (404) instead of failing as an invalid `bigint` in SQL, and no two
 * spellings name one contact.
 *
 * @since 0.1.0
 */

/**
 * The largest id: PostgreSQL's `bigint` maximum, 2^63 − 1.
 *
 * @category constructors
 */
export const MaxSerialId = 9_223_372_036_854_775_807n

/**
 * Whether `s` is an id as the database numbers and the API writes them.
 *
 * @category guards
 */
export const isSerialId = (s: string): boolean => /^[1-9]\d{0,18}$/.test(s) && BigInt(s) <= MaxSerialId
