/**
 * Field readers for decoding wire payloads: each answers the typed value or throws `Invalid`
 * naming the field, so a decoder reads as a list of fields and fails with one sentence.
 */

export class Invalid extends Error {
  override readonly name = "Invalid"
}

type Source = Readonly<Record<string, unknown>>

export const string = (source: Source, key: string): string => {
  const value = source[key]
  if (typeof value !== "string") throw new Invalid(`${key} must be a string`)
  return value
}

/** Absent and `null` read as `undefined`. */
export const optionalString = (source: Source, key: string): string | undefined => {
  const value = source[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== "string") throw new Invalid(`${key} must be a string or null`)
  return value
}

export const boolean = (source: Source, key: string, fallback?: boolean): boolean => {
  const value = source[key]
  if ((value === undefined || value === null) && fallback !== undefined) return fallback
  if (typeof value !== "boolean") throw new Invalid(`${key} must be a boolean`)
  return value
}

export const integer = (source: Source, key: string): number => {
  const value = source[key]
  if (!Number.isSafeInteger(value)) throw new Invalid(`${key} must be an integer`)
  return value as number
}

export const oneOf = <const A extends string>(
  source: Source,
  key: string,
  values: ReadonlyArray<A>,
  fallback?: A
): A => {
  const value = source[key]
  if (value === undefined && fallback !== undefined) return fallback
  if (typeof value !== "string" || !(values as ReadonlyArray<string>).includes(value)) {
    throw new Invalid(`${key} must be one of ${values.join(", ")}`)
  }
  return value as A
}

const e164 = /^\+[1-9]\d{1,14}$/

export const phoneNumber = (source: Source, key: string): string => {
  const value = string(source, key)
  if (!e164.test(value)) throw new Invalid(`${key} must be an E.164 number`)
  return value
}

export const optionalPhoneNumber = (source: Source, key: string): string | null => {
  const value = source[key]
  if (value === null || value === undefined) return null
  return phoneNumber(source, key)
}
