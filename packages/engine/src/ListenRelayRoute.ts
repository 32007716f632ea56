/**
 * The internal endpoint through which another daemon of the database relays a call's live audio
 * to its listener (ListenRelay, docs/LISTEN.md "Several daemons"):
 * `GET /internal/v1/listen-relay/{call_id}?grant=<grant>`, a WebSocket upgrade.
 *
 * The grant (RelayGrant) is the whole credential: the other daemon checked the listener's key or
 * ticket, the organization and the call, and signed a grant for this daemon, this call and one
 * channel, good for 10 s and one use. Anything else is 401 before the upgrade (426 when it is
 * not an upgrade, before the grant is used up). Then it is a listener of this daemon like any
 * other (LiveCalls, with the call's opening when the grant says the listener waited for the
 * media): the same frames as the listen route, `stop` when the call ends, then the close.
 *
 * @since 0.1.0
 */
import type { CallEvents } from "@voice-agent/core/ports/CallEvents"
import type { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { Effect, Option, Stream } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as CallEnd from "./CallEnd.ts"
import * as ListenRelay from "./ListenRelay.ts"
import * as ListenRoute from "./ListenRoute.ts"
import { LiveCalls } from "./LiveCalls.ts"
import * as SocketMedia from "./SocketMedia.ts"

const failure = (status: number, detail: string) => HttpServerResponse.jsonUnsafe({ detail }, { status })

const upgradeExpected = failure(426, "A WebSocket upgrade is expected")

/**
 * The endpoint.
 *
 * @category layers
 */
export const endpoint = HttpRouter.add(
  "GET",
  ListenRelay.path,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const token = (yield* HttpServerRequest.ParsedSearchParams)["grant"]
    const callId = (yield* HttpRouter.params)["call_id"] ?? ""
    if (!/^websocket$/i.test(request.headers["upgrade"] ?? "")) return upgradeExpected
    const grant = typeof token === "string"
      ? yield* (yield* ListenRelay.ListenRelay).accept(token, callId)
      : Option.none()
    if (Option.isNone(grant)) return failure(401, "Invalid, used or expired relay grant")
    const { channel, fromAnswer, organizationId } = grant.value

    const ended = CallEnd.whenEnded(organizationId, callId).pipe(
      Effect.provideContext(yield* Effect.context<CallEvents | ConversationRepository>())
    )
    const segments = yield* (yield* LiveCalls).listen(callId, ended, { fromAnswer })
    const media = yield* SocketMedia.fromSocket(yield* request.upgrade)
    const sending = ListenRoute.sendSegments(media, segments, channel).pipe(
      Effect.andThen(media.send(ListenRoute.stopFrame)),
      Effect.andThen(media.close)
    )
    // Until the call ends, or the relaying daemon goes away.
    yield* Effect.raceFirst(sending, Stream.runDrain(media.incoming))
    return HttpServerResponse.empty()
  }).pipe(
    Effect.scoped,
    Effect.catch(() => Effect.succeed(upgradeExpected))
  )
)
