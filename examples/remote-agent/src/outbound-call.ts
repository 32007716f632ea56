/**
 * An outbound call: the agent calls someone, asks who the reservation is under and how many
 * guests are coming, hangs up once it has both, and answers what it collected.
 *
 * Run against a daemon (`npx voice-agent serve` prints an API key and its number):
 *
 *   VOICE_AGENT_BASE_URL=http://127.0.0.1:8080/ VOICE_AGENT_API_KEY=va_... \
 *     node examples/remote-agent/src/outbound-call.ts +12025550100 +12025550190
 */
import { Agent, Field } from "@voice-agent/agent-sdk"
import type { CallOutcome, Logger } from "@voice-agent/agent-sdk"
import { fileURLToPath } from "node:url"

export interface OutboundCallOptions {
  /** The daemon; default `VOICE_AGENT_BASE_URL` (or `GUAVA_BASE_URL`), else `http://127.0.0.1:8080/`. */
  readonly baseUrl?: string
  /** The organization's API key; default `VOICE_AGENT_API_KEY` (or `GUAVA_API_KEY`). */
  readonly apiKey?: string
  /** One of the organization's numbers (E.164). */
  readonly from: string
  /** The number to call (E.164). */
  readonly to: string
  /** Default: standard error, level `VOICE_AGENT_LOG_LEVEL`. */
  readonly logger?: Logger
}

/** Places the call and resolves once it is over, with how it ended and the fields collected. */
export const confirmReservation = (options: OutboundCallOptions): Promise<CallOutcome> => {
  const { from, to, ...connection } = options
  const agent = new Agent({
    ...connection,
    name: "Riley",
    organization: "Bistro Nine",
    purpose: "to confirm tonight's dinner reservations"
  })

  // Runs as the agent attaches to the call, before anyone speaks: give it its task.
  agent.onCallStart((call) =>
    call.setTask("reservation", {
      objective: "Confirm the reservation: who it is under and how many guests are coming",
      checklist: [
        new Field({ key: "name", fieldType: "text", question: "Who is the reservation under?" }),
        new Field({ key: "guests", fieldType: "integer", question: "How many guests are coming?" })
      ]
    })
  )

  // Both fields are in: say goodbye and end the call (the call then ends `bot-hangup`).
  agent.onTaskComplete(
    "reservation",
    (call) => call.hangup(`Tell them the table for ${call.getNumber("guests")} is set.`)
  )

  return agent.callPhone({ from, to })
}

// node outbound-call.ts <from> <to>
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [from, to] = process.argv.slice(2)
  if (from === undefined || to === undefined) {
    console.error("usage: node outbound-call.ts <from: one of your numbers> <to>")
    process.exit(2)
  }
  const outcome = await confirmReservation({ from, to })
  if (outcome.status === "ended") {
    console.log(`Call ${outcome.callId} ended: ${outcome.terminationReason}`)
    console.log("Collected:", outcome.fields) // { name: 'Alex Morgan', guests: 42 } with the simulated carrier
  } else {
    console.log(`Call ${outcome.callId} ${outcome.status}:`, outcome)
  }
}
