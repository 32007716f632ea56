/**
 * An inbound listener: the agent answers the calls to one of the organization's numbers (those
 * with a caller id; the others are declined), takes a reservation (the caller's name and where
 * they would like to sit), hangs up, and reports each call as it ends.
 *
 * Run against a daemon, then call the number; with the simulated carrier, an operator places a
 * call through the admin API (see the README):
 *
 *   VOICE_AGENT_BASE_URL=http://127.0.0.1:8080/ VOICE_AGENT_API_KEY=va_... \
 *     node examples/remote-agent/src/inbound-listener.ts +12025550100
 */
import { Agent, Field } from "@voice-agent/agent-sdk"
import type { JsonValue, Logger, TerminationReason } from "@voice-agent/agent-sdk"
import { fileURLToPath } from "node:url"

/** A call, once it is over. */
export interface CallSummary {
  readonly callId: string
  /** The caller's number. */
  readonly caller: string | null
  readonly terminationReason: TerminationReason
  /** What the caller answered, by field key. */
  readonly fields: Readonly<Record<string, JsonValue>>
}

export interface InboundListenerOptions {
  /** The daemon; default `VOICE_AGENT_BASE_URL` (or `GUAVA_BASE_URL`), else `http://127.0.0.1:8080/`. */
  readonly baseUrl?: string
  /** The organization's API key; default `VOICE_AGENT_API_KEY` (or `GUAVA_API_KEY`). */
  readonly apiKey?: string
  /** The organization's number to answer (E.164). */
  readonly number: string
  /** Stops listening; calls in progress still run to their end. */
  readonly signal?: AbortSignal
  /** The daemon now offers this number's calls to the agent. */
  readonly onListening?: () => void
  /** Each call, once it is over. */
  readonly onCallEnd?: (call: CallSummary) => void
  /** Default: standard error, level `VOICE_AGENT_LOG_LEVEL`. */
  readonly logger?: Logger
}

/** Answers the number's calls until `signal` aborts, then resolves once the calls in progress end. */
export const takeReservations = (options: InboundListenerOptions): Promise<void> => {
  const { number, signal, onListening, onCallEnd, ...connection } = options
  const agent = new Agent({
    ...connection,
    name: "Sam",
    organization: "Bistro Nine",
    purpose: "to take table reservations"
  })

  // Decide before the call is answered: here, every caller who shows a number.
  agent.onCallReceived((info) => info.callType === "pstn" && info.fromNumber !== null ? "accept" : "decline")

  agent.onCallStart((call) =>
    call.setTask("reservation", {
      objective: "Take a table reservation",
      checklist: [
        new Field({ key: "name", fieldType: "text", question: "What name is the reservation under?" }),
        new Field({
          key: "seating",
          fieldType: "multiple_choice",
          choices: ["indoor", "terrace"],
          question: "Where would you like to sit: indoor or terrace?"
        })
      ]
    })
  )

  agent.onTaskComplete(
    "reservation",
    (call) => call.hangup(`Tell ${call.getText("name")} their ${call.getText("seating")} table is booked.`)
  )

  agent.onSessionEnd((call, { terminationReason }) =>
    onCallEnd?.({
      callId: call.id,
      caller: call.info.callType === "pstn" ? call.info.fromNumber : null,
      terminationReason,
      fields: call.fields
    })
  )

  return agent.listenPhone(number, { signal, onListening })
}

// node inbound-listener.ts <number>; Ctrl-C stops listening.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const number = process.argv[2]
  if (number === undefined) {
    console.error("usage: node inbound-listener.ts <one of your numbers>")
    process.exit(2)
  }
  const stop = new AbortController()
  process.once("SIGINT", () => stop.abort())
  await takeReservations({
    number,
    signal: stop.signal,
    onListening: () => console.log(`Answering calls to ${number}; Ctrl-C to stop`),
    onCallEnd: ({ callId, caller, fields, terminationReason }) =>
      console.log(`Call ${callId} from ${caller} ended (${terminationReason}):`, fields)
  })
}
