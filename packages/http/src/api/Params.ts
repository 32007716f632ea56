/**
 * Schemas for query-string values shared by several endpoints.
 *
 * @since 0.1.0
 */
import { Schema, SchemaGetter } from "effect"

const truthy = ["true", "1", "yes", "on", "t", "y"]
const falsy = ["false", "0", "no", "off", "f", "n"]

/**
 * A boolean in a query string, read as FastAPI (pydantic) reads it: `true`/`false`, `1`/`0`,
 * `yes`/`no`, `on`/`off`, `t`/`f`, `y`/`n`, any letter case.
 *
 * @category schemas
 */
export const QueryBoolean = Schema.String.check(
  Schema.makeFilter((s: string) => {
    const v = s.toLowerCase()
    return truthy.includes(v) || falsy.includes(v) || `Expected a boolean, got ${JSON.stringify(s)}`
  })
).pipe(
  Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((s: string) => truthy.includes(s.toLowerCase())),
    encode: SchemaGetter.transform((b: boolean) => (b ? "true" : "false"))
  })
).annotate({ identifier: "QueryBoolean" })

/**
 * @category guards
 */
export const isTruthyQueryValue = (s: string | undefined): boolean =>
  s !== undefined && truthy.includes(s.toLowerCase())
