/**
 * Hash routes (`/console/#/calls/<id>`): the daemon serves one page, and every view is a hash, so
 * links, the back button and reloads work without the server knowing the console's paths.
 */
import { useEffect, useState } from "preact/hooks"

/**
 * @category models
 */
export interface Route {
  /** Path segments after `#/`, decoded. */
  readonly path: ReadonlyArray<string>
  readonly query: URLSearchParams
}

/**
 * @category decoding
 */
export const parse = (hash: string): Route => {
  const [pathPart = "", queryPart = ""] = hash.replace(/^#\/?/, "").split("?", 2)
  return {
    path: pathPart.split("/").filter((s) => s !== "").map((s) => decodeURIComponent(s)),
    query: new URLSearchParams(queryPart)
  }
}

/**
 * A link target for `segments` (encoded) and an optional query.
 *
 * @category encoding
 */
export const href = (segments: ReadonlyArray<string>, query?: Record<string, string | undefined>): string => {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== "") params.set(key, value)
  }
  const search = params.toString()
  return `#/${segments.map(encodeURIComponent).join("/")}${search === "" ? "" : `?${search}`}`
}

/**
 * @category constructors
 */
export const navigate = (segments: ReadonlyArray<string>, query?: Record<string, string | undefined>): void => {
  location.hash = href(segments, query)
}

/**
 * The current route, re-rendering on every hash change.
 *
 * @category constructors
 */
export const useRoute = (): Route => {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const onChange = () => setHash(location.hash)
    addEventListener("hashchange", onChange)
    return () => removeEventListener("hashchange", onChange)
  }, [])
  return parse(hash)
}
