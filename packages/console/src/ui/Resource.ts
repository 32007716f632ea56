/**
 * Data a view loads from the API: loading, ready (possibly refreshing, possibly with the last
 * refresh's failure) or failed; optionally refreshed by polling while the tab is visible.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { CallFailed } from "../api/Client.ts"
import type { Failure } from "../api/Failure.ts"

/**
 * @category models
 */
export type Resource<A> =
  | { readonly state: "loading" }
  | { readonly state: "ready"; readonly value: A; readonly failure: Failure | undefined }
  | { readonly state: "failed"; readonly failure: Failure }

/**
 * @category decoding
 */
export const toFailure = (error: unknown): Failure =>
  error instanceof CallFailed
    ? error.failure
    : { _tag: "ServerError", status: 0, message: error instanceof Error ? error.message : String(error) }

/**
 * Loads with `load` whenever `deps` change, and every `pollMs` after each answer when given.
 * `reload` loads again now. Answers to a superseded load are dropped.
 *
 * @category constructors
 */
export const useResource = <A>(
  load: () => Promise<A>,
  deps: ReadonlyArray<unknown>,
  pollMs?: number
): Resource<A> & { readonly reload: () => void } => {
  const [resource, setResource] = useState<Resource<A>>({ state: "loading" })
  const generation = useRef(0)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const loadRef = useRef(load)
  loadRef.current = load

  const fetchNow = useCallback((keep: boolean) => {
    const current = ++generation.current
    clearTimeout(timer.current)
    if (!keep) setResource({ state: "loading" })
    loadRef.current().then(
      (value) => {
        if (current !== generation.current) return
        setResource({ state: "ready", value, failure: undefined })
      },
      (error: unknown) => {
        if (current !== generation.current) return
        const failure = toFailure(error)
        setResource((previous) =>
          previous.state === "ready" && keep ? { ...previous, failure } : { state: "failed", failure }
        )
      }
    ).finally(() => {
      if (current !== generation.current || pollMs === undefined) return
      timer.current = setTimeout(function poll() {
        if (document.hidden) timer.current = setTimeout(poll, pollMs)
        else fetchNow(true)
      }, pollMs)
    })
  }, [pollMs])

  useEffect(() => {
    fetchNow(false)
    return () => {
      generation.current++
      clearTimeout(timer.current)
    }
  }, deps)

  const reload = useCallback(() => fetchNow(true), [fetchNow])
  return { ...resource, reload }
}
