/**
 * JSON values: what variables, field values and wire payloads are made of.
 *
 * @since 0.1.0
 */

export type JsonPrimitive = string | number | boolean | null

export type JsonValue = JsonPrimitive | ReadonlyArray<JsonValue> | JsonObject

export interface JsonObject {
  readonly [key: string]: JsonValue
}

/** A plain object (not an array, not null): the shape of every frame and payload. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether `value` survives `JSON.stringify` unchanged: strings, finite numbers, booleans, null,
 * arrays and plain objects of those. `undefined`, functions, symbols, bigints, `NaN`, `Infinity`,
 * dates and class instances do not (JSON would drop, change or refuse them).
 */
export const isJsonValue = (value: unknown): value is JsonValue => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(value)
    case "object": {
      if (value === null) return true
      if (Array.isArray(value)) return value.every(isJsonValue)
      const prototype: unknown = Object.getPrototypeOf(value)
      if (prototype !== Object.prototype && prototype !== null) return false
      return Object.values(value).every(isJsonValue)
    }
    case "bigint":
    case "function":
    case "symbol":
    case "undefined":
      return false
  }
}
