/**
 * Request values the store can keep. PostgreSQL `text` and `jsonb` refuse the NUL character,
 * `jsonb` refuses unpaired UTF-16 surrogates (and the driver would silently replace them in
 * `text`), and deeply nested JSON exhausts the stack (V8's `JSON.stringify`, run by the 16 KB
 * `data` check, overflows at about 8,000 levels inside a request). A body carrying any of these
 * answers 422 at the offending field instead of failing in the database with a 500.
 *
 * Decision: contact `data` and every other request value nest at most 32 levels deep (the
 * documented resources nest 3), which is ample for key/value context data.
 *
 * @since 0.1.0
 */
import { Schema, SchemaAST } from "effect"

/**
 * Deepest nesting accepted in a request value (the body itself is level 0).
 *
 * @category constructors
 */
export const maxDepth = 32

/**
 * @category models
 */
export interface Unstorable {
  readonly path: ReadonlyArray<PropertyKey>
  readonly issue: string
}

const textIssue = (s: string): string | undefined =>
  s.includes("\u0000")
    ? "must not contain the NUL character (\\u0000)"
    : s.isWellFormed()
    ? undefined
    : "must not contain unpaired UTF-16 surrogates"

/**
 * The first string, key or nesting level of `value` the store cannot keep, with its path;
 * `undefined` when there is none. Iterative, so any depth is safe to inspect.
 *
 * @category guards
 */
export const findUnstorable = (value: unknown): Unstorable | undefined => {
  const pending: Array<readonly [unknown, ReadonlyArray<PropertyKey>]> = [[value, []]]
  while (pending.length > 0) {
    const [current, path] = pending.pop()!
    if (typeof current === "string") {
      const issue = textIssue(current)
      if (issue !== undefined) return { path, issue }
    } else if (typeof current === "object" && current !== null) {
      if (path.length >= maxDepth) return { path, issue: `must not be nested more than ${maxDepth} levels deep` }
      if (Array.isArray(current)) {
        current.forEach((item, i) => pending.push([item, [...path, i]]))
      } else {
        for (const [key, item] of Object.entries(current)) {
          const issue = textIssue(key)
          if (issue !== undefined) return { path: [...path, key], issue: `key ${issue}` }
          pending.push([item, [...path, key]])
        }
      }
    }
  }
  return undefined
}

/**
 * A check for request bodies: fails at the path {@link findUnstorable} reports.
 *
 * @category schemas
 */
export const storable = Schema.makeFilter((value: unknown) => {
  const found = findUnstorable(value)
  return found === undefined ? undefined : { path: found.path, issue: found.issue }
})

/**
 * A request body schema with the {@link storable} check, keeping its OpenAPI identifier (a
 * check added after `annotate` would otherwise hide it and inline the schema).
 *
 * @category schemas
 */
export const storableBody = <S extends Schema.Top>(schema: S): S["Rebuild"] => {
  const identifier = SchemaAST.resolveIdentifier(schema.ast)
  const checked = schema.check(storable)
  return identifier === undefined ? checked : checked.annotate({ identifier })
}
