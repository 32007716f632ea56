/**
 * One campaign: its settings and progress, its calls' turn latency (p50, p90), pause and
 * resume, delete (after a confirmation), the agent that takes its calls, editing, and its
 * contacts.
 */
import type { Campaign } from "@voice-agent/core/Campaign"
import { useState } from "preact/hooks"
import { run } from "../api/Client.ts"
import type { Failure } from "../api/Failure.ts"
import * as Flash from "../Flash.ts"
import { count, dateTime } from "../Format.ts"
import { href, navigate } from "../Router.ts"
import { Confirm } from "../ui/Confirm.tsx"
import { toFailure, useResource } from "../ui/Resource.ts"
import { FailureView, Show } from "../ui/States.tsx"
import { callingWindow } from "../Words.ts"
import { CampaignForm } from "./CampaignForm.tsx"
import { loadProgress } from "./Campaigns.tsx"
import { Contacts } from "./Contacts.tsx"
import { ContactUpload } from "./ContactUpload.tsx"
import { CampaignLatency } from "./Latency.tsx"

const Progress = ({ campaign }: { readonly campaign: Campaign }) => {
  const progress = useResource(() => loadProgress(campaign), [campaign.campaign_code], 3000)
  return (
    <Show resource={progress}>
      {({ counts, live }) => (
        <dl class="facts status-counts" aria-label="Status counts">
          <dt>Trying</dt>
          <dd data-status="TRYING">{count(counts.TRYING)}</dd>
          <dt>Completed</dt>
          <dd data-status="COMPLETED">{count(counts.COMPLETED)}</dd>
          <dt>Partially completed</dt>
          <dd data-status="PARTIALLY_COMPLETED">{count(counts.PARTIALLY_COMPLETED)}</dd>
          <dt>Failed</dt>
          <dd data-status="FAILED">{count(counts.FAILED)}</dd>
          <dt>Calls in progress</dt>
          <dd>
            {live > 0 ? <a class="badge live" href={href(["calls"], { campaign: campaign.id })}>{live}</a> : "0"}
          </dd>
        </dl>
      )}
    </Show>
  )
}

const AgentAttachment = ({ campaign }: { readonly campaign: Campaign }) => {
  const attached = useResource(
    () => run((client) => client.agents.campaignAgent({ params: { campaign_code: campaign.campaign_code } })),
    [campaign.campaign_code]
  )
  const agents = useResource(() => run((client) => client.agents.list({ query: { limit: "100" } })), [])
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const attach = (agentId: string | null) => {
    setFailure(undefined)
    run((client) =>
      client.agents.attachToCampaign({
        params: { campaign_code: campaign.campaign_code },
        payload: { agent_id: agentId }
      })
    ).then(attached.reload, (e: unknown) => setFailure(toFailure(e)))
  }
  return (
    <Show resource={attached}>
      {({ agent_id }) => (
        <Show resource={agents}>
          {({ agents: list }) => (
            <div class="row">
              <label>
                Agent taking this campaign's calls
                <select
                  name="campaign-agent"
                  value={agent_id ?? ""}
                  onChange={(e) => attach(e.currentTarget.value === "" ? null : e.currentTarget.value)}
                >
                  <option value="">The engine's default agent</option>
                  {list.map((agent) => <option key={agent.id} value={agent.id}>{agent.name}</option>)}
                </select>
              </label>
              {agent_id !== null && <a href={href(["agents", agent_id])}>Open the agent</a>}
              {failure !== undefined && <FailureView failure={failure} />}
            </div>
          )}
        </Show>
      )}
    </Show>
  )
}

const Overview = ({ campaign }: { readonly campaign: Campaign }) => (
  <dl class="facts">
    <dt>Code</dt>
    <dd class="mono">{campaign.campaign_code}</dd>
    <dt>Calls from</dt>
    <dd class="mono">{campaign.origin_phone_numbers.join(", ")}</dd>
    <dt>Calling windows</dt>
    <dd>{campaign.calling_windows.map(callingWindow).join(", ")} ({campaign.timezone})</dd>
    <dt>Dates</dt>
    <dd>
      from {campaign.start_date}
      {campaign.end_date === null ? ", no end date" : ` to ${campaign.end_date}`} ({campaign.timezone})
    </dd>
    <dt>Attempts</dt>
    <dd>{campaign.max_attempts}, retried after {campaign.retry_delay_s} s</dd>
    <dt>Simultaneous calls</dt>
    <dd>{campaign.max_concurrency}</dd>
    {campaign.description !== null && (
      <>
        <dt>Description</dt>
        <dd>{campaign.description}</dd>
      </>
    )}
    <dt>Created</dt>
    <dd>{dateTime(campaign.created_datetime, campaign.timezone)}</dd>
  </dl>
)

export const CampaignPage = ({ code }: { readonly code: string }) => {
  const campaign = useResource(() => run((client) => client.campaigns.get({ params: { campaign_code: code } })), [code])
  const [flash, setFlash] = useState(Flash.take)
  const [editing, setEditing] = useState(false)
  const [confirming, setConfirming] = useState(false)
  const [failure, setFailure] = useState<Failure | undefined>(undefined)
  const [uploads, setUploads] = useState(0)

  const setEnabled = (enabled: boolean) => {
    setFailure(undefined)
    run((client) => client.campaigns.update({ params: { campaign_code: code }, payload: { enabled } })).then(
      campaign.reload,
      (e: unknown) => setFailure(toFailure(e))
    )
  }
  const remove = () => {
    setConfirming(false)
    run((client) => client.campaigns.delete({ params: { campaign_code: code } })).then(
      () => navigate(["campaigns"]),
      (e: unknown) => setFailure(toFailure(e))
    )
  }

  return (
    <section aria-labelledby="campaign-title">
      <p>
        <a href={href(["campaigns"])}>← Campaigns</a>
      </p>
      <Show resource={campaign} loading="Loading the campaign…">
        {(c) => (
          <>
            <div class="spread">
              <h1 id="campaign-title">
                {c.name} {c.enabled ? <span class="badge">active</span> : <span class="badge paused">paused</span>}
              </h1>
              <div class="actions">
                {c.enabled
                  ? <button type="button" onClick={() => setEnabled(false)}>Pause</button>
                  : <button type="button" class="primary" onClick={() => setEnabled(true)}>Resume</button>}
                <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
                  {editing ? "Close the editor" : "Edit"}
                </button>
                <button type="button" class="danger" onClick={() => setConfirming(true)}>Delete</button>
              </div>
            </div>
            {flash !== undefined && <p class={`notice ${flash.kind}`} role="status">{flash.text}</p>}
            {failure !== undefined && <FailureView failure={failure} />}
            <Confirm
              open={confirming}
              title={`Delete ${c.name}?`}
              confirmLabel="Delete campaign"
              onConfirm={remove}
              onCancel={() => setConfirming(false)}
            >
              <p>No more calls will be placed and the campaign leaves the list. Its calls stay in the call list.</p>
            </Confirm>
            {editing
              ? (
                <div class="card">
                  <h2>Edit</h2>
                  <CampaignForm
                    campaign={c}
                    onSaved={(saved) => {
                      setEditing(false)
                      setFlash(
                        saved.warning === undefined
                          ? { kind: "success", text: "Changes saved" }
                          : { kind: "warning", text: saved.warning }
                      )
                      campaign.reload()
                    }}
                  />
                </div>
              )
              : (
                <div class="grid">
                  <div class="card">
                    <h2>Settings</h2>
                    <Overview campaign={c} />
                  </div>
                  <div class="card">
                    <h2>Progress</h2>
                    <Progress campaign={c} />
                    <h2>Turn latency</h2>
                    <CampaignLatency code={c.campaign_code} />
                    <h2>Agent</h2>
                    <AgentAttachment campaign={c} />
                  </div>
                </div>
              )}
            <div class="card">
              <h2>Upload contacts</h2>
              <ContactUpload campaign={c} onCreated={() => setUploads((n) => n + 1)} />
            </div>
            <Contacts campaign={c} version={uploads} />
          </>
        )}
      </Show>
    </section>
  )
}
