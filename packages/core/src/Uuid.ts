/**
 * Identifiers in the UUID text form (campaign, organization, call and key ids). Owns the one
 * shape check that ids from outside (paths, query parameters, cursors) pass before they reach
 * storage, so a malformed id finds nothing instead of failing as an invalid `uuid` in SQL.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * A UUID in its hyphenated `8-4-4-4-12` hexadecimal form, either case, any version.
 *
 * @category schemas
 */
export const Uuid = Schema.String.check(Schema.isGUID())

/**
 * @category guards
 */
export const isUuid: (value: string) => boolean = Schema.is(Uuid)
