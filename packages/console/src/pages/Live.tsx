/**
 * Live calls: the calls in progress (refreshed every two seconds), and listening to one in the
 * browser (Listener.tsx).
 */
import { run } from "../api/Client.ts"
import { browserZone, dateTime } from "../Format.ts"
import { href } from "../Router.ts"
import { useResource } from "../ui/Resource.ts"
import { Empty, Show } from "../ui/States.tsx"
import { inProgress } from "../Words.ts"
import { Listener } from "./Listener.tsx"

const LiveCalls = () => {
  const calls = useResource(() => run((client) => client.conversations.list({ query: { limit: "100" } })), [], 2000)
  return (
    <Show resource={calls} loading="Loading calls in progress…">
      {({ conversations }) => {
        const live = conversations.filter(inProgress)
        return live.length === 0 ? <Empty>No call is in progress.</Empty> : (
          <div class="table-wrap">
            <table class="live-calls">
              <thead>
                <tr>
                  <th>Started ({browserZone()})</th>
                  <th>Direction</th>
                  <th>From</th>
                  <th>To</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {live.map((call) => (
                  <tr key={call.call_id} data-call-id={call.call_id}>
                    <td>{dateTime(call.ts).replace(` ${browserZone()}`, "")}</td>
                    <td>{call.direction}</td>
                    <td class="mono">{call.from_number}</td>
                    <td class="mono">{call.to_number}</td>
                    <td>
                      <a class="button" href={href(["live", call.call_id])}>Listen</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      }}
    </Show>
  )
}

export const Live = ({ callId }: { readonly callId?: string | undefined }) => (
  <section aria-labelledby="live-title">
    <h1 id="live-title">Live</h1>
    {callId !== undefined && (
      <div class="card">
        <p>
          <a href={href(["calls", callId])}>Open the call's record</a>
        </p>
        <Listener callId={callId} />
      </div>
    )}
    <h2>Calls in progress</h2>
    <LiveCalls />
  </section>
)
