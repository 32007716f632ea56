/**
 * HTTP `Range: bytes=…` for one range (RFC 9110 §14): `a-b`, `a-` and the suffix form `-n`.
 * A header with several ranges, another unit or bad syntax is ignored (the whole body is
 * served, as the RFC permits); a well-formed range that starts past the end is unsatisfiable
 * (416).
 *
 * @since 0.1.0
 */

/**
 * @category models
 */
export type RangeRequest =
  | { readonly _tag: "Full" }
  | { readonly _tag: "Partial"; readonly start: number; readonly end: number }
  | { readonly _tag: "Unsatisfiable" }

/**
 * @category decoding
 */
export const parseRange = (header: string | undefined, size: number): RangeRequest => {
  if (header === undefined) return { _tag: "Full" }
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (m === null || (m[1] === "" && m[2] === "")) return { _tag: "Full" }
  if (m[1] === "") {
    const suffix = Number(m[2])
    if (suffix === 0 || size === 0) return { _tag: "Unsatisfiable" }
    return { _tag: "Partial", start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(m[1])
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1)
  if (m[2] !== "" && Number(m[2]) < start) return { _tag: "Full" }
  if (start >= size) return { _tag: "Unsatisfiable" }
  return { _tag: "Partial", start, end }
}
