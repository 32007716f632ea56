/**
 * The page block that every keyset-paginated list answers with (`GET /v2/contacts`,
 * `GET /v1/conversations`): the items under the list's own name, then `next_cursor` (opaque,
 * null on the last page) and `has_more`. Owns the two fields and how they are filled; the
 * cursor's content belongs to the http package.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The fields after the items: `Schema.Struct({ contacts: Schema.Array(Contact), ...PageFields })`.
 *
 * @category schemas
 */
export const PageFields = {
  next_cursor: Schema.NullOr(Schema.String),
  has_more: Schema.Boolean
} as const

/**
 * @category models
 */
export interface PageInfo {
  readonly next_cursor: string | null
  readonly has_more: boolean
}

/**
 * The page block of a page of `items` that the store fetched with one row more than asked
 * (`hasMore`): a cursor after the last item when there is more, otherwise none.
 *
 * @category constructors
 */
export const pageInfo = <A>(
  items: ReadonlyArray<A>,
  hasMore: boolean,
  cursorAfter: (last: A) => string
): PageInfo => {
  const last = items.at(-1)
  return {
    next_cursor: hasMore && last !== undefined ? cursorAfter(last) : null,
    has_more: hasMore
  }
}
