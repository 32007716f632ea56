/**
 * Keyset paging as the API's lists do it: the cursors of the pages seen so far (the first page
 * has none), so Previous goes back without the API knowing pages, and Next follows `next_cursor`.
 */
import { useState } from "preact/hooks"

/**
 * @category models
 */
export interface Pages {
  /** The cursor of the page shown (`after`); undefined on the first page. */
  readonly after: string | undefined
  /** The page shown, from 1. */
  readonly number: number
  readonly next: (cursor: string) => void
  readonly previous: () => void
  readonly reset: () => void
}

/**
 * @category constructors
 */
export const usePages = (): Pages => {
  const [cursors, setCursors] = useState<ReadonlyArray<string | undefined>>([undefined])
  return {
    after: cursors.at(-1),
    number: cursors.length,
    next: (cursor) => setCursors((seen) => [...seen, cursor]),
    previous: () => setCursors((seen) => (seen.length > 1 ? seen.slice(0, -1) : seen)),
    reset: () => setCursors([undefined])
  }
}

export const Pager = (
  { label, nextCursor, pages }: {
    readonly label: string
    readonly pages: Pages
    /** The page's `next_cursor` (null on the last page). */
    readonly nextCursor: string | null
  }
) => (
  <nav class="pager" aria-label={label}>
    <button type="button" disabled={pages.number === 1} onClick={pages.previous}>Previous</button>
    <span class="muted">Page {pages.number}</span>
    <button type="button" disabled={nextCursor === null} onClick={() => nextCursor !== null && pages.next(nextCursor)}>
      Next
    </button>
  </nav>
)
