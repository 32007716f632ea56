/**
 * A campaign worker: the agent serves the calls a campaign's dialer places to its contacts. Each
 * contact's `data` becomes the call's variables, so the agent greets the patient by name and
 * names their appointment, asks whether they can still make it, and hangs up.
 *
 * Upload contacts such as `{"phone_number": "+12025550190", "data": {"first_name": "Ada",
 * "appointment": "Thursday at 10 am"}}` to a campaign (see the README), then run:
 *
 *   VOICE_AGENT_BASE_URL=http://127.0.0.1:8080/ VOICE_AGENT_API_KEY=va_... \
 *     node examples/remote-agent/src/campaign-worker.ts gcmp-...
 */
import { Agent, Field, Say } from "@voice-agent/agent-sdk"
import type { JsonValue, Logger, TerminationReason } from "@voice-agent/agent-sdk"
import { fileURLToPath } from "node:url"

/** A contact's call, once it is over. */
export interface ContactCall {
  readonly callId: string
  /** The contact's number. */
  readonly phoneNumber: string | null
  /** From the contact's data, which the call has as variables. */
  readonly firstName: string | undefined
  readonly terminationReason: TerminationReason
  /** What the contact answered, by field key. */
  readonly fields: Readonly<Record<string, JsonValue>>
}

export interface CampaignWorkerOptions {
  /** The daemon; default `VOICE_AGENT_BASE_URL` (or `GUAVA_BASE_URL`), else `http://127.0.0.1:8080/`. */
  readonly baseUrl?: string
  /** The organization's API key; default `VOICE_AGENT_API_KEY` (or `GUAVA_API_KEY`). */
  readonly apiKey?: string
  /** The campaign's code, `gcmp-…`. */
  readonly campaignCode: string
  /** Stops taking calls; calls in progress still run to their end. */
  readonly signal?: AbortSignal
  /** The dialer now offers the campaign's calls to the agent. */
  readonly onListening?: () => void
  /** Each call, once it is over. */
  readonly onCallEnd?: (call: ContactCall) => void
  /** Default: standard error, level `VOICE_AGENT_LOG_LEVEL`. */
  readonly logger?: Logger
}

/** A variable's value when it is text. */
const textOf = (value: JsonValue | undefined): string | undefined => typeof value === "string" ? value : undefined

/** Serves the campaign's calls until `signal` aborts, then resolves once the calls in progress end. */
export const remindPatients = (options: CampaignWorkerOptions): Promise<void> => {
  const { campaignCode, signal, onListening, onCallEnd, ...connection } = options
  const agent = new Agent({
    ...connection,
    name: "Riley",
    organization: "Acme Dental",
    purpose: "to remind patients of their appointments"
  })

  // The contact's data is already set as variables when the call starts.
  agent.onCallStart((call) => {
    const name = textOf(call.getVariable("first_name")) ?? "there"
    const appointment = textOf(call.getVariable("appointment")) ?? "soon"
    call.setTask("reminder", {
      objective: "Remind the patient of their appointment and find out whether they can make it",
      checklist: [
        new Say(`Hi ${name}, I am calling about your cleaning ${appointment}.`),
        new Field({
          key: "attending",
          fieldType: "multiple_choice",
          choices: ["yes", "no"],
          question: "Will you make it: yes or no?"
        })
      ]
    })
  })

  agent.onTaskComplete("reminder", (call) =>
    call.hangup(
      call.getText("attending") === "yes" ? "Tell them we look forward to seeing them." : "Offer to call back."
    ))

  agent.onSessionEnd((call, { terminationReason }) =>
    onCallEnd?.({
      callId: call.id,
      phoneNumber: call.info.callType === "pstn" ? call.info.toNumber : null,
      firstName: textOf(call.getVariable("first_name")),
      terminationReason,
      fields: call.fields
    })
  )

  return agent.attachCampaign(campaignCode, { signal, onListening })
}

// node campaign-worker.ts <campaign code>; Ctrl-C stops taking calls.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const campaignCode = process.argv[2]
  if (campaignCode === undefined) {
    console.error("usage: node campaign-worker.ts <campaign code, gcmp-...>")
    process.exit(2)
  }
  const stop = new AbortController()
  process.once("SIGINT", () => stop.abort())
  await remindPatients({
    campaignCode,
    signal: stop.signal,
    onListening: () => console.log(`Serving ${campaignCode}; Ctrl-C to stop`),
    onCallEnd: ({ callId, fields, firstName, phoneNumber, terminationReason }) =>
      console.log(
        `Call ${callId} to ${firstName ?? "a contact"} at ${phoneNumber} ended (${terminationReason}):`,
        fields
      )
  })
}
