/**
 * A campaign's contacts: filters (status, `data`, attempt dates) and keyset pages of 100 (the
 * API's cursors, so a page is as fast at a million contacts as at ten), each contact's
 * eligibility explained in words on demand.
 */
import type { Campaign } from "@voice-agent/core/Campaign"
import type { Contact } from "@voice-agent/core/Contact"
import { useEffect, useState } from "preact/hooks"
import { run } from "../api/Client.ts"
import { browserZone } from "../Format.ts"
import { Pager, usePages } from "../ui/Pager.tsx"
import { toFailure, useResource } from "../ui/Resource.ts"
import { Empty, FailureView, Show } from "../ui/States.tsx"
import { eligibility } from "../Words.ts"

const statuses = ["TRYING", "COMPLETED", "PARTIALLY_COMPLETED", "FAILED"] as const
const PAGE_SIZE = "100"

interface Filters {
  readonly status: ReadonlyArray<string>
  readonly data: string
  readonly attemptedAfter: string
  readonly attemptedBefore: string
}

const noFilters: Filters = { status: [], data: "", attemptedAfter: "", attemptedBefore: "" }

/**
 * The `data` filter as the API takes it (a JSON object): either JSON as typed, or `key=value`
 * pairs separated by commas. `undefined` for an empty filter; an Error for one that is neither.
 */
export const dataFilter = (text: string): string | undefined | Error => {
  const trimmed = text.trim()
  if (trimmed === "") return undefined
  if (trimmed.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? JSON.stringify(parsed)
        : new Error("The data filter must be a JSON object")
    } catch {
      return new Error("The data filter is not valid JSON")
    }
  }
  const pairs = trimmed.split(",").map((pair) => pair.split("="))
  if (pairs.some((pair) => pair.length !== 2 || pair[0]!.trim() === "")) {
    return new Error("Write the data filter as key=value pairs separated by commas, or as a JSON object")
  }
  return JSON.stringify(Object.fromEntries(pairs.map(([key, value]) => [key!.trim(), value!.trim()])))
}

/** A `datetime-local` value (the browser's zone) as an ISO instant. */
const instant = (local: string): string | undefined => local === "" ? undefined : new Date(local).toISOString()

const Eligibility = ({ campaign, contact }: { readonly campaign: Campaign; readonly contact: Contact }) => {
  const [text, setText] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const explain = () => {
    setBusy(true)
    run((client) =>
      client.contacts.eligibility({ params: { campaign_code: campaign.campaign_code, contact_id: contact.id } })
    ).then(
      (value) => setText(eligibility(value, campaign, Date.now())),
      (e: unknown) => setText(toFailure(e).message)
    ).finally(() => setBusy(false))
  }
  return text === undefined
    ? (
      <button type="button" class="link" onClick={explain} disabled={busy} aria-label={`Why? ${contact.phone_number}`}>
        {busy ? "…" : "Why?"}
      </button>
    )
    : <span class="eligibility" role="status">{text}</span>
}

const Row = ({ campaign, contact }: { readonly campaign: Campaign; readonly contact: Contact }) => (
  <tr>
    <td class="mono">{contact.phone_number}</td>
    <td>
      <span class={`badge${contact.status === "FAILED" ? " failed" : ""}`}>{contact.status}</span>
    </td>
    <td class="mono">{Object.keys(contact.data).length === 0 ? "–" : JSON.stringify(contact.data)}</td>
    <td>
      <Eligibility campaign={campaign} contact={contact} />
    </td>
  </tr>
)

export const Contacts = (
  { campaign, version }: {
    readonly campaign: Campaign
    /** Changes when contacts were added: the page loads again. */
    readonly version: number
  }
) => {
  const [draft, setDraft] = useState<Filters>(noFilters)
  const [filters, setFilters] = useState<Filters>(noFilters)
  const pages = usePages()
  const [draftError, setDraftError] = useState<string | undefined>(undefined)
  const after = pages.after
  const data = dataFilter(filters.data)
  const page = useResource(
    () =>
      run((client) =>
        client.contacts.list({
          query: {
            campaign_code: campaign.campaign_code,
            limit: PAGE_SIZE,
            ...(filters.status.length === 0 ? {} : { status: filters.status }),
            ...(typeof data === "string" ? { data } : {}),
            ...(filters.attemptedAfter === "" ? {} : { attempted_after: instant(filters.attemptedAfter)! }),
            ...(filters.attemptedBefore === "" ? {} : { attempted_before: instant(filters.attemptedBefore)! }),
            ...(after === undefined ? {} : { after })
          }
        })
      ),
    [campaign.campaign_code, filters, after, version]
  )
  // The page drawn: the frame after a new answer was committed (the benchmark reads the mark).
  const shown = page.state === "ready" ? page.value : undefined
  useEffect(() => {
    if (shown !== undefined) requestAnimationFrame(() => performance.mark("console:contacts-rendered"))
  }, [shown])

  const apply = (event: Event) => {
    event.preventDefault()
    const checked = dataFilter(draft.data)
    if (checked instanceof Error) return setDraftError(checked.message)
    setDraftError(undefined)
    setFilters(draft)
    pages.reset()
  }

  return (
    <section class="card contacts" aria-labelledby="contacts-title">
      <h2 id="contacts-title">Contacts</h2>
      <form class="stack" onSubmit={apply} aria-label="Contact filters">
        <fieldset>
          <legend>Status</legend>
          <div class="row">
            {statuses.map((status) => (
              <label class="inline" key={status}>
                <input
                  type="checkbox"
                  name="status"
                  value={status}
                  checked={draft.status.includes(status)}
                  onChange={(e) =>
                    setDraft({
                      ...draft,
                      status: e.currentTarget.checked
                        ? [...draft.status, status]
                        : draft.status.filter((s) => s !== status)
                    })}
                />
                {status}
              </label>
            ))}
          </div>
        </fieldset>
        <div class="grid">
          <label>
            Data (key=value, or a JSON object)
            <input
              name="data"
              placeholder="plan=gold"
              value={draft.data}
              onInput={(e) => setDraft({ ...draft, data: e.currentTarget.value })}
            />
          </label>
          <label>
            Last attempted after ({browserZone()})
            <input
              type="datetime-local"
              name="attempted_after"
              value={draft.attemptedAfter}
              onInput={(e) => setDraft({ ...draft, attemptedAfter: e.currentTarget.value })}
            />
          </label>
          <label>
            Last attempted before ({browserZone()})
            <input
              type="datetime-local"
              name="attempted_before"
              value={draft.attemptedBefore}
              onInput={(e) => setDraft({ ...draft, attemptedBefore: e.currentTarget.value })}
            />
          </label>
        </div>
        {draftError !== undefined && <p class="error" role="alert">{draftError}</p>}
        <div class="actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            onClick={() => {
              setDraft(noFilters)
              setFilters(noFilters)
              pages.reset()
            }}
          >
            Clear
          </button>
          <button type="button" onClick={page.reload}>Refresh</button>
        </div>
      </form>
      <Show resource={page} loading="Loading contacts…">
        {({ contacts, next_cursor }) => (
          <>
            {contacts.length === 0
              ? <Empty>No contacts match.</Empty>
              : (
                <div class="table-wrap">
                  <table class="contacts-table">
                    <thead>
                      <tr>
                        <th>Number</th>
                        <th>Status</th>
                        <th>Data</th>
                        <th>Eligibility</th>
                      </tr>
                    </thead>
                    <tbody>
                      {contacts.map((contact) => <Row key={contact.id} campaign={campaign} contact={contact} />)}
                    </tbody>
                  </table>
                </div>
              )}
            <Pager label="Contact pages" pages={pages} nextCursor={next_cursor} />
          </>
        )}
      </Show>
      {typeof data === "object" && <FailureView failure={{ _tag: "Refused", status: 400, message: data.message }} />}
    </section>
  )
}
