/**
 * The webhook events a call caused and how each was delivered, to every endpoint with every
 * attempt (the admin API's `GET /admin/v1/webhook-deliveries?call_id=`). Shown when the admin
 * token was given in this tab; it is the installation's, so the page offers the admin pages'
 * sign-in rather than asking here.
 */
import { admin } from "../api/Client.ts"
import * as Session from "../api/Session.ts"
import { dateTime } from "../Format.ts"
import { href } from "../Router.ts"
import { Attempts } from "../ui/Attempts.tsx"
import { useResource } from "../ui/Resource.ts"
import { Empty, Show } from "../ui/States.tsx"

const Deliveries = ({ callId, live }: { readonly callId: string; readonly live: boolean }) => {
  const deliveries = useResource(
    () => admin((client) => client.webhooks.callDeliveries({ query: { call_id: callId } })),
    [callId],
    live ? 3000 : 10_000
  )
  return (
    <Show resource={deliveries} loading="Loading the call's events…">
      {({ deliveries: list }) =>
        list.length === 0 ?
          <Empty>No webhook endpoint received an event of this call.</Empty> :
          (
            <div class="table-wrap">
              <table class="call-events">
                <thead>
                  <tr>
                    <th>Event</th>
                    <th>Endpoint</th>
                    <th>Status</th>
                    <th>Attempts (newest first)</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <code>{d.event_type}</code>
                        <div class="muted">{dateTime(d.created_datetime)}</div>
                      </td>
                      <td class="mono">{d.url}</td>
                      <td>
                        <span class={`badge${d.status === "failed" ? " failed" : ""}`}>{d.status}</span>
                      </td>
                      <td>
                        <Attempts attempts={d.attempt_history} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
    </Show>
  )
}

export const CallEvents = ({ callId, live }: { readonly callId: string; readonly live: boolean }) => {
  const token = Session.useCredential("adminToken")
  return (
    <div class="card">
      <h2>Webhook events</h2>
      {token === null
        ? (
          <p class="muted">
            The events this call sent to your webhooks are shown with the admin token:{" "}
            <a href={href(["admin"])}>give it in the admin pages</a>.
          </p>
        )
        : <Deliveries callId={callId} live={live} />}
    </div>
  )
}
