/**
 * The campaign list: each campaign's status counts and calls in progress, refreshed every few
 * seconds while the tab is visible.
 */
import type { Campaign } from "@voice-agent/core/Campaign"
import { Effect } from "effect"
import { useEffect } from "preact/hooks"
import { run } from "../api/Client.ts"
import { count } from "../Format.ts"
import { href } from "../Router.ts"
import { useResource } from "../ui/Resource.ts"
import { Empty, Show } from "../ui/States.tsx"
import { inProgress } from "../Words.ts"

const POLL_MS = 3000

/**
 * The newest calls of a campaign looked at for "in progress" (calls in progress are among the
 * newest: at most max_concurrency at once).
 */
const RECENT_CALLS = 100

interface Progress {
  readonly counts: {
    readonly TRYING: number
    readonly COMPLETED: number
    readonly PARTIALLY_COMPLETED: number
    readonly FAILED: number
  }
  readonly live: number
}

/**
 * A campaign's status counts and calls in progress.
 */
export const loadProgress = (campaign: Pick<Campaign, "id" | "campaign_code">) =>
  run((client) =>
    Effect.all({
      status: client.campaigns.status({ params: { campaign_code: campaign.campaign_code } }),
      calls: client.conversations.list({ query: { campaign_id: campaign.id, limit: String(RECENT_CALLS) } })
    }, { concurrency: 2 }).pipe(
      Effect.map(({ calls, status }): Progress => ({
        counts: status.status_counts,
        live: calls.conversations.filter(inProgress).length
      }))
    )
  )

const ProgressCells = ({ progress }: { readonly progress: Progress | undefined }) => {
  const cell = (n: number | undefined) => <td class="num">{n === undefined ? "…" : count(n)}</td>
  return (
    <>
      {cell(progress?.counts.TRYING)}
      {cell(progress?.counts.COMPLETED)}
      {cell(progress?.counts.PARTIALLY_COMPLETED)}
      {cell(progress?.counts.FAILED)}
      <td class="num">
        {progress === undefined ? "…" : progress.live > 0 ? <span class="badge live">{progress.live}</span> : "0"}
      </td>
    </>
  )
}

export const Campaigns = () => {
  const campaigns = useResource(() => run((client) => client.campaigns.list()), [], POLL_MS * 3)
  const codes = campaigns.state === "ready" ? campaigns.value.map((c) => c.campaign_code).join(",") : ""
  const progress = useResource(
    () =>
      campaigns.state === "ready"
        ? Promise.all(campaigns.value.map((c) => loadProgress(c).then((p) => [c.campaign_code, p] as const)))
          .then((entries) => new Map(entries))
        : Promise.resolve(new Map<string, Progress>()),
    [codes],
    POLL_MS
  )
  useEffect(() => {
    if (campaigns.state === "ready") performance.mark("console:campaigns-rendered")
  }, [campaigns.state])
  const progressOf = (code: string) => progress.state === "ready" ? progress.value.get(code) : undefined
  return (
    <section aria-labelledby="campaigns-title">
      <div class="spread">
        <h1 id="campaigns-title">Campaigns</h1>
        <a class="button primary" href={href(["campaigns", "new"])}>New campaign</a>
      </div>
      <Show resource={campaigns} loading="Loading campaigns…">
        {(list) =>
          list.length === 0
            ? (
              <Empty>
                No campaigns yet. <a href={href(["campaigns", "new"])}>Create the first one</a>.
              </Empty>
            )
            : (
              <div class="table-wrap">
                <table class="campaigns">
                  <thead>
                    <tr>
                      <th>Name</th>
                      <th>State</th>
                      <th class="num">Trying</th>
                      <th class="num">Completed</th>
                      <th class="num">Partial</th>
                      <th class="num">Failed</th>
                      <th class="num">In progress</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((campaign) => (
                      <tr key={campaign.campaign_code} data-code={campaign.campaign_code}>
                        <td>
                          <a href={href(["campaigns", campaign.campaign_code])}>{campaign.name}</a>
                          <div class="muted mono">{campaign.campaign_code}</div>
                        </td>
                        <td>
                          {campaign.enabled
                            ? <span class="badge">active</span>
                            : <span class="badge paused">paused</span>}
                        </td>
                        <ProgressCells progress={progressOf(campaign.campaign_code)} />
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
      </Show>
    </section>
  )
}
