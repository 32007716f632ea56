/**
 * The kit's `transfer` check: an agent of the kit's own (`@voice-agent/agent-sdk`, the reference
 * SDK's protocol) places a call through the engine (`v2/create-outbound`) to the trunk's transfer
 * number and, once connected, asks to transfer it (`transfer-call`). The engine says its transfer
 * message, sends REFER in the call's dialog with `Refer-To: <sip:<target>@<trunk host>>`,
 * follows the trunk's NOTIFYs (100, then 200) and hangs its leg up (BYE); the conversation ends
 * `bot-transfer` (CONTRACT §8, "Transfer").
 *
 * @since 0.1.0
 */
import { Agent, silentLogger } from "@voice-agent/agent-sdk"
import { Effect } from "effect"
import * as Api from "./Api.ts"
import * as Trace from "./Trace.ts"

/** The number the trunk answers and then waits for a REFER on (trunk.xml, `...0302`). */
export const number = "+12025550302"

/** Where the kit's agent transfers the call. */
export const target = "+14155550123"

/** What the check checks, as the report says it. */
export const checked = `an agent's transfer (transfer-call) of an answered call: REFER in the call's dialog to ` +
  `<sip:${target}@<trunk host>>, its NOTIFYs (100, 200) answered 200, then the engine's BYE; the call ends bot-transfer`

/**
 * Places the call from `from` with an agent that transfers it at once; completes when the SDK
 * says the call is over (its outcome as text, for the report).
 *
 * @category constructors
 */
export const place = (api: Api.Api, from: string) =>
  Effect.tryPromise({
    try: async () => {
      const agent = new Agent({
        name: "sip-check",
        organization: "voice-agent SIP conformance kit",
        baseUrl: `${api.url}/`,
        apiKey: api.key,
        logger: silentLogger
      })
      agent.onCallStart((call) => call.transfer(target, "Tell the caller you are transferring them."))
      return await agent.callPhone({ from, to: number })
    },
    catch: (error) => new Api.ApiError({ message: `the kit's agent could not place its call: ${String(error)}` })
  })

/**
 * The check's verdict from the call's conversation and what the trunk saw of it: undefined
 * when it passed, else why not.
 *
 * @category constructors
 */
export const failure = (
  conversation: Api.Conversation | undefined,
  call: ReadonlyArray<Trace.Traced>,
  trunkHost: string
): string | undefined => {
  const saw = `the trunk saw: ${call.length === 0 ? "no INVITE" : Trace.summary(call)}`
  const refer = call.find((m) => m.direction === "received" && m.startLine.startsWith("REFER "))
  if (refer === undefined) return `no REFER reached the trunk; ${saw}`
  const referTo = /^Refer-To:\s*(.*?)\s*$/im.exec(refer.text)?.[1]
  if (referTo !== `<sip:${target}@${trunkHost}>`) {
    return `the REFER's Refer-To is ${JSON.stringify(referTo)}, not <sip:${target}@${trunkHost}>; ${saw}`
  }
  const after = call.slice(call.indexOf(refer))
  const notifiesAnswered =
    after.filter((m) =>
      m.direction === "received" && m.startLine.startsWith("SIP/2.0 200") && /CSeq:\s*\d+ NOTIFY/i.test(m.text)
    ).length
  if (notifiesAnswered < 2) return `the engine answered ${notifiesAnswered} of the trunk's 2 NOTIFYs with 200; ${saw}`
  if (!after.some((m) => m.direction === "received" && m.startLine.startsWith("BYE "))) {
    return `the engine did not hang its leg up (no BYE after the NOTIFY 200); ${saw}`
  }
  if (conversation === undefined) return `no conversation to ${number} ended; ${saw}`
  if (conversation.termination_reason !== "bot-transfer") {
    return `the call ended ${conversation.termination_reason}, not bot-transfer; ${saw}`
  }
  return undefined
}
