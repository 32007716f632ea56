/**
 * The reference SDK's WebSocket endpoints (docs/REMOTE_AGENTS.md), at the paths the Python SDK 0.35 uses:
 * `/v2/connect-call/{call_id}` and `/v2/connect-campaign-call/{call_id}` (a call's socket),
 * `/v1/serve-campaign/{campaign_id}` and `/v2/listen-inbound?phone_number=` (discovery).
 *
 * The upgrade is accepted whatever the key (the SDK retries a refused upgrade for a minute, and
 * reads a `close` answering its `open` as final): the client's first frame must be `open`
 * within 10 s; a missing, unknown or revoked bearer key is answered with `close`
 * `authentication-failure`, a campaign or number the key's organization does not have with
 * `close` `other`. The `x-guava-*` headers are accepted and ignored. The organization is the
 * key's, never the request's.
 *
 * @since 0.1.0
 */
import * as Envelope from "@voice-agent/agent-protocol/Envelope"
import type { Organization } from "@voice-agent/core/Organization"
import { isE164 } from "@voice-agent/core/PhoneNumber"
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { CampaignRepository } from "@voice-agent/core/ports/CampaignRepository"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import * as SocketMedia from "@voice-agent/engine/SocketMedia"
import { Duration, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { CallSessions } from "./CallSessions.ts"
import * as Channel from "./Channel.ts"
import { Listeners } from "./Listeners.ts"

const OPEN_TIMEOUT = Duration.seconds(10)

/** The first frame, if it is an `open` in time. */
const readOpen = (socket: MediaSocket) =>
  Effect.gen(function*() {
    const frames = yield* socket.read.pipe(Effect.timeoutOption(OPEN_TIMEOUT), Effect.map(Option.getOrUndefined))
    const first = frames?.[0]
    const frame = first === undefined ? undefined : Envelope.parse(first)
    return frame?.message_type === "open" ? frame : undefined
  })

/**
 * Upgrades, reads `open`, authenticates; then `serve`s the socket with the key's organization.
 */
const socketRoute = (
  serve: (
    organization: Organization,
    socket: MediaSocket,
    open: Envelope.Open,
    params: { readonly [key: string]: string | undefined },
    search: { readonly [key: string]: string | ReadonlyArray<string> | undefined }
  ) => Effect.Effect<void, never, CallSessions | Listeners | CampaignRepository | PhoneNumberRepository>
) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const params = yield* HttpRouter.params
    const search = yield* HttpServerRequest.ParsedSearchParams
    const keys = yield* ApiKeyRepository
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers["authorization"] ?? "")
    const upgraded = yield* request.upgrade
    yield* Effect.scoped(Effect.gen(function*() {
      const socket = yield* SocketMedia.fromSocket(upgraded)
      const open = yield* readOpen(socket)
      if (open === undefined) return yield* Channel.refuse(socket, "other", "The first frame must be an open message")
      const organization = match === null ? Option.none() : yield* keys.authenticate(match[1]!)
      if (Option.isNone(organization)) {
        return yield* Channel.refuse(socket, "authentication-failure", "Invalid or missing API key")
      }
      yield* serve(organization.value, socket, open, params, search)
    }))
    return HttpServerResponse.empty()
  }).pipe(
    Effect.catch(() => Effect.succeed(HttpServerResponse.text("A WebSocket upgrade is expected", { status: 426 })))
  )

const callSocket = socketRoute((organization, socket, open, params) =>
  Effect.gen(function*() {
    yield* (yield* CallSessions).connect(params["call_id"] ?? "", organization.id, socket, open)
  })
)

const serveCampaign = socketRoute((organization, socket, open, params) =>
  Effect.gen(function*() {
    const campaignId = params["campaign_id"] ?? ""
    const campaign = yield* (yield* CampaignRepository).findById(organization.id, campaignId)
    if (Option.isNone(campaign)) return yield* Channel.refuse(socket, "other", `Campaign ${campaignId} not found`)
    yield* (yield* Listeners).listen(organization.id, { _tag: "Campaign", campaignId: campaign.value.id }, socket, open)
  })
)

const listenInbound = socketRoute((organization, socket, open, _params, search) =>
  Effect.gen(function*() {
    const number = search["phone_number"]
    if (typeof number !== "string" || !isE164(number)) {
      return yield* Channel.refuse(
        socket,
        "other",
        "phone_number (E.164) is required; webrtc_code and sip_code are not served"
      )
    }
    const owned = yield* (yield* PhoneNumberRepository).findOwner(number)
    if (Option.isNone(owned) || owned.value.organizationId !== organization.id) {
      return yield* Channel.refuse(socket, "other", `${number} is not one of the organization's numbers`)
    }
    yield* (yield* Listeners).listen(organization.id, { _tag: "Inbound", phoneNumber: number }, socket, open)
  })
)

/**
 * The routes.
 *
 * @category layers
 */
export const routes = Layer.mergeAll(
  HttpRouter.add("GET", "/v2/connect-call/:call_id", callSocket),
  HttpRouter.add("GET", "/v2/connect-campaign-call/:call_id", callSocket),
  HttpRouter.add("GET", "/v1/serve-campaign/:campaign_id", serveCampaign),
  HttpRouter.add("GET", "/v2/listen-inbound", listenInbound)
)
