/**
 * The call list with the API's filters, newest first, calls in progress marked; the first page
 * refreshes itself every few seconds.
 */
import { Result } from "effect"
import { useState } from "preact/hooks"
import { run } from "../api/Client.ts"
import { browserZone, dateTime, duration } from "../Format.ts"
import * as Phone from "../Phone.ts"
import { href, navigate } from "../Router.ts"
import { Pager, usePages } from "../ui/Pager.tsx"
import { useResource } from "../ui/Resource.ts"
import { Empty, Show } from "../ui/States.tsx"
import { inProgress } from "../Words.ts"

const filterNames = ["direction", "from_number", "to_number", "date_from", "date_to", "campaign"] as const
type FilterName = typeof filterNames[number]

const read = (query: URLSearchParams): Record<FilterName, string> =>
  Object.fromEntries(filterNames.map((name) => [name, query.get(name) ?? ""])) as Record<FilterName, string>

const instant = (local: string): string | undefined => local === "" ? undefined : new Date(local).toISOString()

export const Calls = ({ query }: { readonly query: URLSearchParams }) => {
  const filters = read(query)
  const [draft, setDraft] = useState(filters)
  const pages = usePages()
  const after = pages.after
  const campaigns = useResource(() => run((client) => client.campaigns.list()), [])
  const key = JSON.stringify(filters)
  // Numbers in any common formatting, normalized as the API would; one that cannot be is named.
  const number = (input: string) => input === "" ? undefined : Result.getOrUndefined(Phone.parse(input))
  const from = number(filters.from_number)
  const to = number(filters.to_number)
  const badNumber = [filters.from_number, filters.to_number].find((n) => n !== "" && number(n) === undefined)
  const page = useResource(
    () =>
      run((client) =>
        client.conversations.list({
          query: {
            limit: "50",
            ...(filters.direction === "" ? {} : { direction: filters.direction as "inbound" | "outbound" }),
            ...(from === undefined ? {} : { from_number: from }),
            ...(to === undefined ? {} : { to_number: to }),
            ...(filters.date_from === "" ? {} : { date_from: instant(filters.date_from)! }),
            ...(filters.date_to === "" ? {} : { date_to: instant(filters.date_to)! }),
            ...(filters.campaign === "" ? {} : { campaign_id: filters.campaign }),
            ...(after === undefined ? {} : { after })
          }
        })
      ),
    [key, after],
    after === undefined ? 3000 : undefined
  )
  const campaignName = (id: string | null) =>
    id === null ? "–" : campaigns.state === "ready" ? campaigns.value.find((c) => c.id === id)?.name ?? id : id

  const apply = (event: Event) => {
    event.preventDefault()
    pages.reset()
    navigate(["calls"], draft)
  }
  const onInput = (name: FilterName) => (e: { readonly currentTarget: HTMLInputElement }) =>
    setDraft({ ...draft, [name]: e.currentTarget.value })
  const numberInput = (name: "from_number" | "to_number", label: string) => (
    <label>
      {label}
      <input name={name} value={draft[name]} placeholder="+12025550123" onInput={onInput(name)} />
    </label>
  )
  const dateInput = (name: "date_from" | "date_to", label: string) => (
    <label>
      {label} ({browserZone()})
      <input type="datetime-local" name={name} value={draft[name]} onInput={onInput(name)} />
    </label>
  )
  return (
    <section aria-labelledby="calls-title">
      <h1 id="calls-title">Calls</h1>
      <form class="card stack" onSubmit={apply} aria-label="Call filters">
        <div class="grid">
          <label>
            Direction
            <select
              name="direction"
              value={draft.direction}
              onChange={(e) => setDraft({ ...draft, direction: e.currentTarget.value })}
            >
              <option value="">Both</option>
              <option value="outbound">Outbound</option>
              <option value="inbound">Inbound</option>
            </select>
          </label>
          <label>
            Campaign
            <select
              name="campaign"
              value={draft.campaign}
              onChange={(e) => setDraft({ ...draft, campaign: e.currentTarget.value })}
            >
              <option value="">Any</option>
              {campaigns.state === "ready" &&
                campaigns.value.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
            </select>
          </label>
          {numberInput("from_number", "From number")}
          {numberInput("to_number", "To number")}
          {dateInput("date_from", "From")}
          {dateInput("date_to", "To")}
        </div>
        <div class="actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            onClick={() => {
              setDraft(read(new URLSearchParams()))
              pages.reset()
              navigate(["calls"])
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {badNumber !== undefined && <p class="error" role="alert">Not a phone number: {badNumber}</p>}
      <Show resource={page} loading="Loading calls…">
        {({ conversations, next_cursor }) => (
          <>
            {conversations.length === 0
              ? <Empty>No calls match.</Empty>
              : (
                <div class="table-wrap">
                  <table class="calls">
                    <thead>
                      <tr>
                        <th>When ({browserZone()})</th>
                        <th>Direction</th>
                        <th>From</th>
                        <th>To</th>
                        <th>Campaign</th>
                        <th class="num">Duration</th>
                        <th>Outcome</th>
                      </tr>
                    </thead>
                    <tbody>
                      {conversations.map((call) => (
                        <tr key={call.call_id} data-call-id={call.call_id}>
                          <td>
                            <a href={href(["calls", call.call_id])}>
                              {dateTime(call.ts).replace(` ${browserZone()}`, "")}
                            </a>
                          </td>
                          <td>{call.direction}</td>
                          <td class="mono">{call.from_number}</td>
                          <td class="mono">{call.to_number}</td>
                          <td>{campaignName(call.campaign_id)}</td>
                          <td class="num">{duration(call.duration_sec)}</td>
                          <td>
                            {inProgress(call)
                              ? (
                                <a class="badge live" href={href(["live", call.call_id])} title="Listen live">
                                  in progress
                                </a>
                              )
                              : call.termination_reason ?? "–"}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            <Pager label="Call pages" pages={pages} nextCursor={next_cursor} />
          </>
        )}
      </Show>
    </section>
  )
}
