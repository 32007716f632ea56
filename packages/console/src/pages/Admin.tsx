/**
 * The admin pages, with the daemon's admin token (asked once per tab, like the API key):
 * organizations, and per organization its settings, API keys (a new key's text shown once),
 * numbers, Do-Not-Call list and event webhooks with their deliveries.
 */
import { useState } from "preact/hooks"
import { admin } from "../api/Client.ts"
import type { Failure } from "../api/Failure.ts"
import * as Session from "../api/Session.ts"
import { dateTime } from "../Format.ts"
import { href, navigate } from "../Router.ts"
import { toFailure, useResource } from "../ui/Resource.ts"
import { SignIn } from "../ui/SignIn.tsx"
import { Empty, FailureView, Show } from "../ui/States.tsx"
import { AdminOrganization } from "./AdminOrganization.tsx"

const NewOrganization = ({ onCreated }: { readonly onCreated: (id: string) => void }) => {
  const [name, setName] = useState("")
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const submit = (event: Event) => {
    event.preventDefault()
    setFailure(undefined)
    admin((client) => client.admin.createOrganization({ payload: { name: name.trim() } })).then(
      (org) => onCreated(org.id),
      (e: unknown) => setFailure(toFailure(e))
    )
  }
  return (
    <form class="row" onSubmit={submit} aria-label="New organization">
      <label>
        New organization
        <input name="organization-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <button type="submit" class="primary">Create organization</button>
      {failure !== undefined && <FailureView failure={failure} />}
    </form>
  )
}

const Organizations = () => {
  const organizations = useResource(() => admin((client) => client.admin.listOrganizations()), [])
  return (
    <>
      <div class="card">
        <NewOrganization onCreated={(id) => navigate(["admin", id])} />
      </div>
      <Show resource={organizations} loading="Loading organizations…">
        {(list) =>
          list.length === 0 ? <Empty>No organization yet.</Empty> : (
            <div class="table-wrap">
              <table class="organizations">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Outbound calls</th>
                    <th>SMS</th>
                    <th class="num">Call limit</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((org) => (
                    <tr key={org.id}>
                      <td>
                        <a href={href(["admin", org.id])}>{org.name}</a>
                        <div class="muted mono">{org.id}</div>
                      </td>
                      <td>{org.outbound_dialing_enabled ? "enabled" : "disabled"}</td>
                      <td>
                        {org.sms_registered ? (org.billing_issue ? "billing issue" : "registered") : "not registered"}
                      </td>
                      <td class="num">{org.max_concurrency}</td>
                      <td>{dateTime(org.created_datetime)}</td>
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

export const Admin = ({ orgId, tab }: { readonly orgId?: string | undefined; readonly tab?: string | undefined }) => {
  const token = Session.useCredential("adminToken")
  if (token === null) {
    return <SignIn credential="adminToken" check={() => admin((client) => client.admin.listOrganizations())} />
  }
  return (
    <section aria-labelledby="admin-title">
      <div class="spread">
        <h1 id="admin-title">Admin</h1>
        <button type="button" class="link" onClick={() => Session.forget("adminToken")}>Forget the admin token</button>
      </div>
      {orgId === undefined ? <Organizations /> : <AdminOrganization orgId={orgId} tab={tab ?? "keys"} />}
    </section>
  )
}
