/**
 * Storage port for an organization's Do-Not-Call list.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect } from "effect"
import type { E164 } from "../PhoneNumber.ts"

/**
 * A listed number.
 *
 * @category models
 */
export interface DncEntry {
  readonly phoneNumber: E164
  readonly createdAt: Date
}

/**
 * @category services
 */
export class DncRepository extends Context.Service<DncRepository, {
  /**
   * Adds numbers (already listed ones are kept) and, in the same transaction, moves every
   * `TRYING` contact of the organization with those numbers to `FAILED`
   * (`ContactState.onDoNotCall`: one in a call too, whose lease stays until the call ends).
   * `added` counts numbers that were not listed before.
   */
  readonly add: (
    organizationId: string,
    phoneNumbers: ReadonlyArray<E164>
  ) => Effect.Effect<{ readonly added: number; readonly contactsFailed: number }>
  /** Removes a number; answers how many entries were removed (0 or 1). */
  readonly remove: (organizationId: string, phoneNumber: E164) => Effect.Effect<number>
  /**
   * A page of the organization's list in number order, after the number `after` (keyset on
   * the primary key), with whether more follow.
   */
  readonly list: (query: {
    readonly organizationId: string
    readonly after?: E164 | undefined
    readonly limit: number
  }) => Effect.Effect<{ readonly entries: ReadonlyArray<DncEntry>; readonly hasMore: boolean }>
  /** Those of `phoneNumbers` that are on the organization's list (one query). */
  readonly findListed: (
    organizationId: string,
    phoneNumbers: ReadonlyArray<E164>
  ) => Effect.Effect<ReadonlyArray<E164>>
}>()("@voice-agent/core/ports/DncRepository") {}
