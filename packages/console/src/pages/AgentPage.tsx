/**
 * One agent definition: edit it, attach it to campaigns (their outbound calls) and to numbers
 * (their inbound calls), or delete it.
 */
import type { AgentResource } from "@voice-agent/core/AgentDefinition"
import { Effect } from "effect"
import { useState } from "preact/hooks"
import { run } from "../api/Client.ts"
import type { Failure } from "../api/Failure.ts"
import { href, navigate } from "../Router.ts"
import { Confirm } from "../ui/Confirm.tsx"
import { toFailure, useResource } from "../ui/Resource.ts"
import { FailureView, Show } from "../ui/States.tsx"
import { AgentForm } from "./AgentForm.tsx"

interface Attachments {
  readonly campaigns: ReadonlyArray<{ readonly code: string; readonly name: string; readonly agentId: string | null }>
  readonly numbers: ReadonlyArray<{ readonly number: string; readonly agentId: string | null }>
}

const loadAttachments = () =>
  run((client) =>
    Effect.all({
      campaigns: client.campaigns.list().pipe(
        Effect.flatMap((campaigns) =>
          Effect.forEach(campaigns, (c) =>
            client.agents.campaignAgent({ params: { campaign_code: c.campaign_code } }).pipe(
              Effect.map((a) => ({ code: c.campaign_code, name: c.name, agentId: a.agent_id }))
            ), { concurrency: 4 })
        )
      ),
      numbers: client.messages.phoneNumbers().pipe(
        Effect.flatMap((numbers) =>
          Effect.forEach(numbers, (n) =>
            client.agents.numberAgent({ params: { phone_number: n.phone_number } }).pipe(
              Effect.map((a) => ({ number: n.phone_number, agentId: a.agent_id }))
            ), { concurrency: 4 })
        )
      )
    }, { concurrency: 2 })
  )

interface Attachable {
  readonly id: string
  readonly label: string
}

/**
 * Where the agent is attached (each with Detach) and a form to attach it to one more.
 */
const Attachments = (
  { agentId, attach, attached, link, name, others, title }: {
    readonly title: string
    /** `campaign` or `number`: the form's field is `attach-<name>`. */
    readonly name: string
    readonly attached: ReadonlyArray<Attachable>
    readonly others: ReadonlyArray<Attachable>
    readonly link?: (id: string) => string
    readonly attach: (id: string, agentId: string | undefined) => void
    readonly agentId: string
  }
) => {
  const [chosen, setChosen] = useState("")
  return (
    <div>
      <h3>{title}</h3>
      <ul class={`attached-${name}s`}>
        {attached.length === 0 && <li class="muted">None</li>}
        {attached.map((item) => (
          <li key={item.id}>
            {link === undefined ? <span class="mono">{item.label}</span> : <a href={link(item.id)}>{item.label}</a>}
            {" "}
            <button type="button" class="link" onClick={() => attach(item.id, undefined)}>Detach</button>
          </li>
        ))}
      </ul>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault()
          if (chosen !== "") attach(chosen, agentId)
          setChosen("")
        }}
      >
        <label>
          {name === "campaign" ? "Campaign" : "Number"}
          <select name={`attach-${name}`} value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
            <option value="">Choose…</option>
            {others.map((item) => <option key={item.id} value={item.id}>{item.label}</option>)}
          </select>
        </label>
        <button type="submit" disabled={chosen === ""}>Attach to {name}</button>
      </form>
    </div>
  )
}

const Attach = ({ agent }: { readonly agent: AgentResource }) => {
  const attachments = useResource<Attachments>(loadAttachments, [agent.id])
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const act = (call: Promise<unknown>) => {
    setFailure(undefined)
    call.then(attachments.reload, (e: unknown) => setFailure(toFailure(e)))
  }
  const toCampaign = (code: string, agentId: string | null) =>
    act(
      run((client) =>
        client.agents.attachToCampaign({ params: { campaign_code: code }, payload: { agent_id: agentId } })
      )
    )
  const toNumber = (phone: string, agentId: string | null) =>
    act(
      run((client) => client.agents.attachToNumber({ params: { phone_number: phone }, payload: { agent_id: agentId } }))
    )
  return (
    <Show resource={attachments}>
      {({ campaigns, numbers }) => {
        return (
          <div class="grid">
            <Attachments
              title="Campaigns (outbound calls)"
              name="campaign"
              attached={campaigns.filter((c) => c.agentId === agent.id).map((c) => ({ id: c.code, label: c.name }))}
              others={campaigns.filter((c) => c.agentId !== agent.id).map((c) => ({ id: c.code, label: c.name }))}
              link={(code) => href(["campaigns", code])}
              attach={(code, agentId) => toCampaign(code, agentId ?? null)}
              agentId={agent.id}
            />
            <Attachments
              title="Numbers (inbound calls)"
              name="number"
              attached={numbers.filter((n) => n.agentId === agent.id).map((n) => ({ id: n.number, label: n.number }))}
              others={numbers.filter((n) => n.agentId !== agent.id).map((n) => ({ id: n.number, label: n.number }))}
              attach={(number, agentId) => toNumber(number, agentId ?? null)}
              agentId={agent.id}
            />
            {failure !== undefined && <FailureView failure={failure} />}
          </div>
        )
      }}
    </Show>
  )
}

export const AgentPage = ({ agentId }: { readonly agentId: string }) => {
  const isNew = agentId === "new"
  const agent = useResource(
    () => (isNew ? Promise.resolve(undefined) : run((client) => client.agents.get({ params: { agent_id: agentId } }))),
    [agentId]
  )
  const [saved, setSaved] = useState(false)
  const [confirming, setConfirming] = useState(false)
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const remove = () => {
    setConfirming(false)
    run((client) => client.agents.delete({ params: { agent_id: agentId } })).then(
      () => navigate(["agents"]),
      (e: unknown) => setFailure(toFailure(e))
    )
  }
  return (
    <section aria-labelledby="agent-title">
      <p>
        <a href={href(["agents"])}>← Agents</a>
      </p>
      <Show resource={agent} loading="Loading the agent…">
        {(a) => (
          <>
            <div class="spread">
              <h1 id="agent-title">{a === undefined ? "New agent" : a.name}</h1>
              {a !== undefined && (
                <button type="button" class="danger" onClick={() => setConfirming(true)}>Delete</button>
              )}
            </div>
            {saved && <p class="notice success" role="status">Saved</p>}
            {failure !== undefined && <FailureView failure={failure} />}
            {a !== undefined && (
              <Confirm
                open={confirming}
                title={`Delete ${a.name}?`}
                confirmLabel="Delete agent"
                onConfirm={remove}
                onCancel={() => setConfirming(false)}
              >
                <p>An agent attached to a campaign or a number cannot be deleted: detach it first.</p>
              </Confirm>
            )}
            {a !== undefined && (
              <div class="card">
                <h2>Attached to</h2>
                <Attach agent={a} />
              </div>
            )}
            <div class="card">
              <AgentForm
                key={a?.updated_at ?? "new"}
                agent={a}
                onSaved={(result) => {
                  setSaved(true)
                  if (a === undefined) navigate(["agents", result.id])
                  else agent.reload()
                }}
              />
            </div>
          </>
        )}
      </Show>
    </section>
  )
}
