/**
 * The simulated carrier (CONTRACT §6), deterministic, for development, demos and tests.
 *
 * SMS: a message to a number whose outcome is `carrier-failure` (555-0170..0179) is refused
 * like a carrier refusing an unreachable destination; every other message is accepted with
 * status `queued`, as Twilio answers a send. Calls are placed by the dialer's simulation,
 * which is not part of this module yet: `placeCall` fails with a non-retryable
 * `CarrierError` saying so, and `events` is empty.
 *
 * @since 0.1.0
 */
import { Carrier, CarrierError } from "@voice-agent/core/ports/Carrier"
import { Effect, Layer, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { outcomeFor } from "./SimOutcome.ts"

/**
 * @category constructors
 */
export const make = Effect.sync(() =>
  Carrier.of({
    placeCall: (request) =>
      Effect.fail(
        new CarrierError({ reason: "rejected", message: `simulated calls are not available yet (to ${request.to})` })
      ),
    hangUp: () => Effect.void,
    events: Stream.empty,
    sendSms: (message) =>
      outcomeFor(message.to) === "carrier-failure"
        ? Effect.fail(new CarrierError({ reason: "rejected", message: `destination ${message.to} is unreachable` }))
        : Effect.sync(() => ({ messageId: `SM${randomUUID().replaceAll("-", "")}`, status: "queued" }))
  })
)

/**
 * @category layers
 */
export const layer = Layer.effect(Carrier, make)
