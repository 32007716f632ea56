/**
 * One organization in the admin pages: its settings, and tabs for its API keys, numbers,
 * Do-Not-Call list and event webhooks.
 */
import { Result } from "effect"
import { useState } from "preact/hooks"
import { admin } from "../api/Client.ts"
import type { Failure } from "../api/Failure.ts"
import { dateTime } from "../Format.ts"
import * as Phone from "../Phone.ts"
import { href } from "../Router.ts"
import { Confirm } from "../ui/Confirm.tsx"
import { Pager, usePages } from "../ui/Pager.tsx"
import { toFailure, useResource } from "../ui/Resource.ts"
import { ShownOnce } from "../ui/ShownOnce.tsx"
import { Empty, FailureView, Show } from "../ui/States.tsx"
import { AdminWebhooks } from "./AdminWebhooks.tsx"

const tabs = [["keys", "API keys"], ["numbers", "Numbers"], ["dnc", "Do-Not-Call"], ["webhooks", "Webhooks"]] as const

/** Runs an admin call, then `done`; a failure goes to `fail`. */
const act = (call: Promise<unknown>, done: () => void, fail: (failure: Failure) => void): void => {
  call.then(done, (e: unknown) => fail(toFailure(e)))
}

const Settings = ({ orgId }: { readonly orgId: string }) => {
  const org = useResource(() => admin((client) => client.admin.getOrganization({ params: { org_id: orgId } })), [orgId])
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const update = (payload: {
    readonly outbound_dialing_enabled?: boolean
    readonly sms_registered?: boolean
    readonly billing_issue?: boolean
    readonly max_concurrency?: number
  }) => {
    setFailure(undefined)
    act(
      admin((client) => client.admin.updateOrganization({ params: { org_id: orgId }, payload })),
      org.reload,
      setFailure
    )
  }
  return (
    <Show resource={org} loading="Loading the organization…">
      {(o) => (
        <div class="card">
          <h2>{o.name}</h2>
          <p class="muted mono">{o.id}</p>
          <div class="row">
            {([
              ["outbound_dialing_enabled", "Outbound dialing enabled", o.outbound_dialing_enabled],
              ["sms_registered", "SMS registered", o.sms_registered],
              ["billing_issue", "Billing issue", o.billing_issue]
            ] as const).map(([key, label, value]) => (
              <label class="inline" key={key}>
                <input
                  type="checkbox"
                  name={key}
                  checked={value}
                  onChange={(e) => update({ [key]: e.currentTarget.checked })}
                />
                {label}
              </label>
            ))}
            <label>
              Call limit (all campaigns)
              <input
                type="number"
                name="max_concurrency"
                min={1}
                value={o.max_concurrency}
                onChange={(e) => update({ max_concurrency: Number(e.currentTarget.value) })}
              />
            </label>
          </div>
          {failure !== undefined && <FailureView failure={failure} />}
        </div>
      )}
    </Show>
  )
}

const Keys = ({ orgId }: { readonly orgId: string }) => {
  const keys = useResource(() => admin((client) => client.admin.listApiKeys({ params: { org_id: orgId } })), [orgId])
  const [issued, setIssued] = useState<string | undefined>(undefined)
  const [revoking, setRevoking] = useState<string | undefined>(undefined)
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const issue = () => {
    setFailure(undefined)
    admin((client) => client.admin.createApiKey({ params: { org_id: orgId } })).then(
      (key) => {
        setIssued(key.api_key)
        keys.reload()
      },
      (e: unknown) => setFailure(toFailure(e))
    )
  }
  const revoke = (keyId: string) => {
    setRevoking(undefined)
    act(
      admin((client) => client.admin.revokeApiKey({ params: { org_id: orgId, key_id: keyId } })),
      keys.reload,
      setFailure
    )
  }
  return (
    <>
      <div class="actions">
        <button type="button" class="primary" onClick={issue}>Issue an API key</button>
      </div>
      {issued !== undefined && <ShownOnce label="New API key" value={issued} />}
      {failure !== undefined && <FailureView failure={failure} />}
      <Confirm
        open={revoking !== undefined}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        onConfirm={() => revoking !== undefined && revoke(revoking)}
        onCancel={() => setRevoking(undefined)}
      >
        <p>Every request with it is refused (401) from then on.</p>
      </Confirm>
      <Show resource={keys}>
        {(list) =>
          list.length === 0 ? <Empty>No key yet.</Empty> : (
            <div class="table-wrap">
              <table class="keys">
                <thead>
                  <tr>
                    <th>Key id</th>
                    <th>Issued</th>
                    <th>State</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((key) => (
                    <tr key={key.id}>
                      <td class="mono">{key.id}</td>
                      <td>{dateTime(key.created_datetime)}</td>
                      <td>
                        {key.revoked_datetime === null
                          ? (
                            <button type="button" class="danger" onClick={() => setRevoking(key.id)}>
                              Revoke
                            </button>
                          )
                          : <span class="badge failed">revoked {dateTime(key.revoked_datetime)}</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </Show>
    </>
  )
}

const Numbers = ({ orgId }: { readonly orgId: string }) => {
  const numbers = useResource(
    () => admin((client) => client.admin.listPhoneNumbers({ params: { org_id: orgId } })),
    [orgId]
  )
  const [number, setNumber] = useState("")
  const [sms, setSms] = useState(true)
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const add = (event: Event) => {
    event.preventDefault()
    setFailure(undefined)
    const parsed = Phone.parse(number)
    if (Result.isFailure(parsed)) return setFailure({ _tag: "Refused", status: 422, message: parsed.failure })
    act(
      admin((client) =>
        client.admin.addPhoneNumber({
          params: { org_id: orgId },
          payload: { phone_number: parsed.success, sms_enabled: sms }
        })
      ),
      () => {
        setNumber("")
        numbers.reload()
      },
      setFailure
    )
  }
  return (
    <>
      <form class="row" onSubmit={add} aria-label="Add a number">
        <label>
          Number
          <input
            name="phone_number"
            required
            placeholder="+12025550123"
            value={number}
            onInput={(e) => setNumber(e.currentTarget.value)}
          />
        </label>
        <label class="inline">
          <input type="checkbox" name="sms_enabled" checked={sms} onChange={(e) => setSms(e.currentTarget.checked)} />
          SMS enabled
        </label>
        <button type="submit" class="primary">Add number</button>
      </form>
      {failure !== undefined && <FailureView failure={failure} />}
      <Show resource={numbers}>
        {(list) =>
          list.length === 0 ? <Empty>No number yet.</Empty> : (
            <div class="table-wrap">
              <table class="numbers">
                <thead>
                  <tr>
                    <th>Number</th>
                    <th>SMS</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((n) => (
                    <tr key={n.phone_number}>
                      <td class="mono">{n.phone_number}</td>
                      <td>{n.sms_enabled ? "enabled" : "off"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </Show>
    </>
  )
}

const Dnc = ({ orgId }: { readonly orgId: string }) => {
  const pages = usePages()
  const after = pages.after
  const page = useResource(
    () =>
      admin((client) =>
        client.admin.listDnc({ params: { org_id: orgId }, query: after === undefined ? {} : { after } })
      ),
    [orgId, after]
  )
  const [text, setText] = useState("")
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const add = (event: Event) => {
    event.preventDefault()
    setFailure(undefined)
    const typed = text.split(/[\n,;]+/).map((n) => n.trim()).filter((n) => n !== "")
    const parsed = typed.map((n) => [n, Phone.parse(n)] as const)
    const bad = parsed.find(([, result]) => Result.isFailure(result))
    if (bad !== undefined) return setFailure({ _tag: "Refused", status: 422, message: `Not a phone number: ${bad[0]}` })
    if (typed.length === 0) return
    admin((client) =>
      client.admin.addDnc({
        params: { org_id: orgId },
        payload: { phone_numbers: parsed.map(([, result]) => Result.getOrThrow(result)) }
      })
    ).then(
      ({ added }) => {
        setText("")
        setNotice(`${added} number${added === 1 ? "" : "s"} added; their contacts still trying are failed now`)
        pages.reset()
        page.reload()
      },
      (e: unknown) => setFailure(toFailure(e))
    )
  }
  const remove = (number: string) =>
    act(
      admin((client) =>
        client.admin.removeDnc({ params: { org_id: orgId }, query: { phone_number: Phone.fromApi(number) } })
      ),
      page.reload,
      setFailure
    )
  return (
    <>
      <form class="stack" onSubmit={add} aria-label="Add Do-Not-Call numbers">
        <label>
          Numbers to add (one per line)
          <textarea name="dnc-numbers" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <div class="actions">
          <button type="submit" class="primary">Add to the list</button>
        </div>
      </form>
      {notice !== undefined && <p class="notice success" role="status">{notice}</p>}
      {failure !== undefined && <FailureView failure={failure} />}
      <Show resource={page}>
        {({ next_cursor, phone_numbers }) => (
          <>
            {phone_numbers.length === 0 ? <Empty>The list is empty.</Empty> : (
              <div class="table-wrap">
                <table class="dnc">
                  <thead>
                    <tr>
                      <th>Number</th>
                      <th>Listed</th>
                      <th />
                    </tr>
                  </thead>
                  <tbody>
                    {phone_numbers.map((entry) => (
                      <tr key={entry.phone_number}>
                        <td class="mono">{entry.phone_number}</td>
                        <td>{dateTime(entry.created_datetime)}</td>
                        <td>
                          <button type="button" class="link" onClick={() => remove(entry.phone_number)}>Remove</button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <Pager label="Do-Not-Call pages" pages={pages} nextCursor={next_cursor} />
          </>
        )}
      </Show>
    </>
  )
}

export const AdminOrganization = ({ orgId, tab }: { readonly orgId: string; readonly tab: string }) => (
  <>
    <p>
      <a href={href(["admin"])}>← Organizations</a>
    </p>
    <Settings orgId={orgId} />
    <nav class="tabs" aria-label="Organization">
      <ul class="row">
        {tabs.map(([id, label]) => (
          <li key={id}>
            <a class="button" href={href(["admin", orgId, id])} aria-current={tab === id ? "page" : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
    <div class="card">
      {tab === "keys" && <Keys orgId={orgId} />}
      {tab === "numbers" && <Numbers orgId={orgId} />}
      {tab === "dnc" && <Dnc orgId={orgId} />}
      {tab === "webhooks" && <AdminWebhooks orgId={orgId} />}
    </div>
  </>
)
