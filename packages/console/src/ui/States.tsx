/**
 * Loading, empty and error states, the same on every page. Offline and server failures offer a
 * retry; a refusal shows the API's own reason.
 */
import type { ComponentChildren } from "preact"
import type { Failure } from "../api/Failure.ts"
import type { Resource } from "./Resource.ts"

export const Loading = ({ label = "Loading…" }: { readonly label?: string }) => (
  <p class="state loading" role="status" aria-live="polite">
    <span class="spinner" aria-hidden="true" />
    {label}
  </p>
)

export const Empty = ({ children }: { readonly children: ComponentChildren }) => <p class="state empty">{children}</p>

const headline = (failure: Failure): string => {
  switch (failure._tag) {
    case "Offline":
      return "No answer from the daemon"
    case "ServerError":
      return "The daemon failed"
    case "Refused":
      return failure.status === 404 ? "Not found" : "Refused"
    case "Unauthorized":
      return "Signed out"
  }
}

export const FailureView = (
  { failure, retry }: { readonly failure: Failure; readonly retry?: (() => void) | undefined }
) => (
  <div class="state failure" role="alert">
    <strong>{headline(failure)}</strong>
    <span>{failure.message}</span>
    {retry !== undefined && (failure._tag === "Offline" || failure._tag === "ServerError") && (
      <button type="button" onClick={retry}>Retry</button>
    )}
  </div>
)

/**
 * Renders `children` with the value once ready; the loading and failed states otherwise. A
 * failed refresh of a ready value is shown above it.
 */
export function Show<A>(
  { resource, children, loading }: {
    readonly resource: Resource<A> & { readonly reload: () => void }
    readonly children: (value: A) => ComponentChildren
    readonly loading?: string
  }
) {
  switch (resource.state) {
    case "loading":
      return <Loading {...(loading === undefined ? {} : { label: loading })} />
    case "failed":
      return <FailureView failure={resource.failure} retry={resource.reload} />
    case "ready":
      return (
        <>
          {resource.failure !== undefined && <FailureView failure={resource.failure} retry={resource.reload} />}
          {children(resource.value)}
        </>
      )
  }
}
