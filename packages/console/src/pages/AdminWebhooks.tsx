/**
 * An organization's event webhooks: the endpoints (a new one's signing secret shown once), and
 * each endpoint's deliveries, newest first, with their attempts.
 */
import type { WebhookEventType } from "@voice-agent/core/Webhook"
import { WebhookEventTypes } from "@voice-agent/core/Webhook"
import { useState } from "preact/hooks"
import { admin } from "../api/Client.ts"
import type { Failure } from "../api/Failure.ts"
import { dateTime } from "../Format.ts"
import { Attempts } from "../ui/Attempts.tsx"
import { Confirm } from "../ui/Confirm.tsx"
import { Pager, usePages } from "../ui/Pager.tsx"
import { toFailure, useResource } from "../ui/Resource.ts"
import { ShownOnce } from "../ui/ShownOnce.tsx"
import { Empty, FailureView, Show } from "../ui/States.tsx"

const Deliveries = ({ orgId, webhookId }: { readonly orgId: string; readonly webhookId: string }) => {
  const pages = usePages()
  const after = pages.after
  const page = useResource(
    () =>
      admin((client) =>
        client.webhooks.deliveries({
          params: { org_id: orgId, webhook_id: webhookId },
          query: after === undefined ? {} : { after }
        })
      ),
    [orgId, webhookId, after],
    after === undefined ? 5000 : undefined
  )
  return (
    <Show resource={page} loading="Loading deliveries…">
      {({ deliveries, next_cursor }) => (
        <>
          {deliveries.length === 0 ? <Empty>No delivery yet.</Empty> : (
            <div class="table-wrap">
              <table class="deliveries">
                <thead>
                  <tr>
                    <th>Event</th>
                    <th>Status</th>
                    <th class="num">Attempts</th>
                    <th>Every attempt (newest first)</th>
                    <th>Created</th>
                    <th>Next attempt</th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <code>{d.event_type}</code>
                        <div class="muted mono">{d.event_id}</div>
                      </td>
                      <td>
                        <span class={`badge${d.status === "failed" ? " failed" : ""}`}>{d.status}</span>
                      </td>
                      <td class="num">{d.attempts}</td>
                      <td>
                        <Attempts attempts={d.attempt_history} />
                      </td>
                      <td>{dateTime(d.created_datetime)}</td>
                      <td>{d.next_attempt_datetime === null ? "–" : dateTime(d.next_attempt_datetime)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pager label="Delivery pages" pages={pages} nextCursor={next_cursor} />
        </>
      )}
    </Show>
  )
}

const NewWebhook = ({ orgId, onCreated }: { readonly orgId: string; readonly onCreated: () => void }) => {
  const [url, setUrl] = useState("")
  const [events, setEvents] = useState<ReadonlyArray<WebhookEventType>>([])
  const [secret, setSecret] = useState<string | undefined>(undefined)
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const submit = (event: Event) => {
    event.preventDefault()
    setFailure(undefined)
    admin((client) =>
      client.webhooks.create({
        params: { org_id: orgId },
        payload: { url: url.trim(), ...(events.length === 0 ? {} : { events }) }
      })
    ).then(
      (created) => {
        setSecret(created.secret)
        setUrl("")
        onCreated()
      },
      (e: unknown) => setFailure(toFailure(e))
    )
  }
  return (
    <form class="stack" onSubmit={submit} aria-label="New webhook endpoint">
      <label>
        Endpoint URL
        <input
          name="webhook-url"
          type="url"
          required
          placeholder="https://example.org/hooks/voice"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <fieldset>
        <legend>Events (none checked: every event)</legend>
        <div class="row">
          {WebhookEventTypes.map((type) => (
            <label class="inline" key={type}>
              <input
                type="checkbox"
                name="event"
                value={type}
                checked={events.includes(type)}
                onChange={(e) =>
                  setEvents(e.currentTarget.checked ? [...events, type] : events.filter((t) => t !== type))}
              />
              <code>{type}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <div class="actions">
        <button type="submit" class="primary">Add endpoint</button>
      </div>
      {secret !== undefined && <ShownOnce label="Signing secret" value={secret} />}
      {failure !== undefined && <FailureView failure={failure} />}
    </form>
  )
}

export const AdminWebhooks = ({ orgId }: { readonly orgId: string }) => {
  const endpoints = useResource(() => admin((client) => client.webhooks.list({ params: { org_id: orgId } })), [orgId])
  const [open, setOpen] = useState<string | undefined>(undefined)
  const [deleting, setDeleting] = useState<string | undefined>(undefined)
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const remove = (webhookId: string) => {
    setDeleting(undefined)
    admin((client) => client.webhooks.delete({ params: { org_id: orgId, webhook_id: webhookId } })).then(
      endpoints.reload,
      (e: unknown) => setFailure(toFailure(e))
    )
  }
  return (
    <>
      <NewWebhook orgId={orgId} onCreated={endpoints.reload} />
      {failure !== undefined && <FailureView failure={failure} />}
      <Confirm
        open={deleting !== undefined}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        onConfirm={() => deleting !== undefined && remove(deleting)}
        onCancel={() => setDeleting(undefined)}
      >
        <p>Its deliveries are deleted with it; pending ones are never attempted again.</p>
      </Confirm>
      <h3>Endpoints</h3>
      <Show resource={endpoints}>
        {(list) =>
          list.length === 0 ? <Empty>No endpoint yet.</Empty> : (
            <ul class="endpoints stack">
              {list.map((endpoint) => (
                <li key={endpoint.id} class="card">
                  <div class="spread">
                    <div>
                      <code>{endpoint.url}</code>
                      <div class="muted">{endpoint.events === null ? "every event" : endpoint.events.join(", ")}</div>
                    </div>
                    <div class="actions">
                      <button
                        type="button"
                        aria-expanded={open === endpoint.id}
                        onClick={() => setOpen(open === endpoint.id ? undefined : endpoint.id)}
                      >
                        {open === endpoint.id ? "Hide deliveries" : "Deliveries"}
                      </button>
                      <button type="button" class="danger" onClick={() => setDeleting(endpoint.id)}>Delete</button>
                    </div>
                  </div>
                  {open === endpoint.id && <Deliveries orgId={orgId} webhookId={endpoint.id} />}
                </li>
              ))}
            </ul>
          )}
      </Show>
    </>
  )
}
