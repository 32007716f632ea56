/**
 * The FastApiValidation middleware (defined in api/Validation.ts): request-decoding failures
 * become `422 {"detail": [{loc, msg, type}]}` with every failing field. Response-encoding
 * failures stay 500 (our bug). Messages are Effect's; `type` names follow pydantic's where
 * one exists.
 *
 * @since 0.1.0
 */
import { Effect, SchemaIssue } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import type { HttpApiEndpoint, HttpApiError } from "effect/http-api"
import { FastApiValidation, HTTPValidationError } from "../api/Validation.ts"

type Item = { loc: Array<string | number>; msg: string; type: string }

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()
const messageOf = (issue: SchemaIssue.Issue): string => formatter(issue).issues[0]?.message ?? "Invalid value"

// pydantic-ish names for the built-in Effect checks (extend as needed)
const checkTypes: Record<string, string> = {
  "effect/schema/isMinLength": "too_short",
  "effect/schema/isMaxLength": "too_long",
  "effect/schema/isGreaterThan": "greater_than",
  "effect/schema/isGreaterThanOrEqualTo": "greater_than_equal",
  "effect/schema/isLessThan": "less_than",
  "effect/schema/isLessThanOrEqualTo": "less_than_equal",
  "effect/schema/isBetween": "value_error",
  "effect/schema/isInt": "int_type",
  "effect/schema/isFinite": "finite_number",
  "effect/schema/isPattern": "string_pattern_mismatch"
}

const astTypes: Record<string, string> = {
  String: "string_type",
  Number: "number_type",
  Boolean: "bool_type",
  BigInt: "int_type",
  Objects: "model_attributes_type",
  Arrays: "list_type",
  Literal: "literal_error",
  Enum: "enum",
  Null: "none_required"
}

const collect = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>, out: Array<Item>): void => {
  const loc = path.map((k) => (typeof k === "number" ? k : String(k)))
  switch (issue._tag) {
    case "Pointer":
      return collect(issue.issue, [...path, ...issue.path], out)
    case "Encoding":
      return collect(issue.issue, path, out)
    case "Composite":
      return issue.issues.forEach((i) => collect(i, path, out))
    case "AnyOf":
      if (issue.issues.length > 0) return issue.issues.forEach((i) => collect(i, path, out))
      out.push({ loc, msg: messageOf(issue), type: "union_error" })
      return
    case "Filter": {
      if (issue.issue._tag !== "InvalidValue") return collect(issue.issue, path, out)
      const id = issue.filter.annotations?.representation?.id
      out.push({ loc, msg: messageOf(issue), type: (id && checkTypes[id]) ?? "value_error" })
      return
    }
    case "MissingKey":
      out.push({ loc, msg: "Field required", type: "missing" })
      return
    case "UnexpectedKey":
      out.push({ loc, msg: "Extra inputs are not permitted", type: "extra_forbidden" })
      return
    case "InvalidType":
      out.push({ loc, msg: messageOf(issue), type: astTypes[issue.ast._tag] ?? "type_error" })
      return
    case "InvalidValue": {
      const msg = messageOf(issue)
      out.push({ loc, msg, type: msg === "Expected a valid JSON body" ? "json_invalid" : "value_error" })
      return
    }
    case "Forbidden":
    case "OneOf":
      out.push({ loc, msg: messageOf(issue), type: "value_error" })
  }
}

const slotOf = (kind: HttpApiError.HttpApiSchemaError["kind"], endpoint: HttpApiEndpoint.Top): string => {
  switch (kind) {
    case "Params":
      return "path"
    case "Query":
      return "query"
    case "Headers":
      return "header"
    case "ResponseHeaders":
      return "header"
    case "Body":
      return "body"
    case "Payload": // GET/HEAD/OPTIONS/DELETE payloads come from the query string
      return ["GET", "HEAD", "OPTIONS", "DELETE"].includes(endpoint.method) ? "query" : "body"
  }
}

/**
 * The `detail` items of a decoding issue, each `loc` starting with `slot` (`"query"`, `"path"`,
 * `"header"`, `"body"`). Also for the routes outside the HttpApi (the live-listen upgrade), so
 * their 422s are these very ones.
 *
 * @category encoding
 */
export const detailOf = (issue: SchemaIssue.Issue, slot: string): Array<Item> => {
  const items: Array<Item> = []
  collect(issue, [slot], items)
  return items
}

export const toFastApiDetail = (
  error: HttpApiError.HttpApiSchemaError,
  endpoint: HttpApiEndpoint.Top
): Array<Item> => detailOf(error.cause.issue, slotOf(error.kind, endpoint))

/**
 * @category layers
 */
export const FastApiValidationLive = HttpApiMiddleware.layerSchemaErrorTransform(
  FastApiValidation,
  (error, { endpoint }) =>
    // "Body" / "ResponseHeaders" are *response* encoding failures: keep the default 500.
    error.kind === "Body" || error.kind === "ResponseHeaders"
      ? Effect.fail(error)
      : Effect.fail(new HTTPValidationError({ detail: toFastApiDetail(error, endpoint) }))
)
