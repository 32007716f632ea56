/**
 * The prompt for a credential: the organization's API key (every page) or the daemon's admin
 * token (the admin pages). The value is checked with one call before it is kept, and kept only
 * in this tab's sessionStorage.
 */
import { useState } from "preact/hooks"
import type { Credential } from "../api/Session.ts"
import * as Session from "../api/Session.ts"
import { toFailure } from "./Resource.ts"

const texts: Record<Credential, { readonly title: string; readonly label: string; readonly help: string }> = {
  apiKey: {
    title: "Sign in with an API key",
    label: "API key",
    help:
      "The key of your organization (va_…). The daemon prints one on its first start; the admin API issues more. It is kept in this tab only, until you close it."
  },
  adminToken: {
    title: "Admin token",
    label: "Admin token",
    help:
      "The daemon's VOICE_AGENT_ADMIN_TOKEN. The admin pages need it; it is kept in this tab only, until you close it."
  }
}

export const SignIn = (
  { credential, check }: {
    readonly credential: Credential
    /** One call made with the candidate stored; its failure is shown and the candidate dropped. */
    readonly check: () => Promise<unknown>
  }
) => {
  const [value, setValue] = useState("")
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const text = texts[credential]
  const submit = (event: Event) => {
    event.preventDefault()
    const candidate = value.trim()
    if (candidate === "") return setError(`Enter the ${text.label.toLowerCase()}`)
    setBusy(true)
    setError(undefined)
    Session.set(credential, candidate)
    check().then(
      () => setBusy(false),
      (e: unknown) => {
        const failure = toFailure(e)
        Session.forget(credential)
        setBusy(false)
        setError(
          failure._tag === "Unauthorized"
            ? `That ${text.label.toLowerCase()} was refused`
            : failure._tag === "Refused" && failure.status === 404 && credential === "adminToken"
            ? "The admin API is off on this daemon: start it with VOICE_AGENT_ADMIN_TOKEN set"
            : failure.message
        )
      }
    )
  }
  return (
    <form class="signin card" onSubmit={submit}>
      <h1>{text.title}</h1>
      <p class="muted">{text.help}</p>
      <label>
        {text.label}
        <input
          type="password"
          name={credential}
          autocomplete="off"
          spellcheck={false}
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          aria-invalid={error !== undefined}
          aria-describedby={error === undefined ? undefined : `${credential}-error`}
          autofocus
        />
      </label>
      {error !== undefined && <p id={`${credential}-error`} class="error" role="alert">{error}</p>}
      <button type="submit" class="primary" disabled={busy}>{busy ? "Checking…" : "Continue"}</button>
    </form>
  )
}
