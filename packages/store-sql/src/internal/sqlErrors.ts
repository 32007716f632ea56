/**
 * The repositories' error edge: infrastructure failures become defects, so ports expose only
 * domain errors. Infrastructure here: SQL errors, rows that do not decode, and a statement
 * that always answers one row (INSERT ... RETURNING) answering none. The few SQL failures
 * that mean something in the domain (a unique constraint) are recognized by name first.
 */
import { Cause, Effect, Schema } from "effect"
import { SqlError } from "effect/sql"

/** True for a unique violation of the named constraint or unique index. */
export const isUniqueViolation = (constraint: string) => (error: unknown): boolean =>
  SqlError.isSqlError(error) && error.reason._tag === "UniqueViolation" && error.reason.constraint === constraint

type Infrastructure = SqlError.SqlError | Schema.SchemaError | Cause.NoSuchElementError

const isInfrastructure = (error: unknown): error is Infrastructure =>
  SqlError.isSqlError(error) || Schema.isSchemaError(error) || Cause.isNoSuchElementError(error)

/** Turns infrastructure failures into defects; other failures pass through. */
export const orDieInfrastructure = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, Infrastructure>, R> =>
  Effect.catchIf(self, isInfrastructure, Effect.die) as Effect.Effect<A, Exclude<E, Infrastructure>, R>
