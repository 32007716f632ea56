/**
 * SMS use cases: send through the Carrier port from an owned, SMS-enabled number; list
 * inbound messages received on an owned number.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { PhoneNumberNotOwned, SmsNotEnabled } from "./Errors.ts"
import type { MessageRecord, SendSmsRequest } from "./Message.ts"
import type { Organization, OwnedPhoneNumber } from "./Organization.ts"
import type { E164 } from "./PhoneNumber.ts"
import type { CarrierError } from "./ports/Carrier.ts"
import { Carrier } from "./ports/Carrier.ts"
import type { InboundMessageQuery } from "./ports/MessageRepository.ts"
import { MessageRepository } from "./ports/MessageRepository.ts"
import { PhoneNumberRepository } from "./ports/PhoneNumberRepository.ts"
import { nowDate } from "./Time.ts"

/**
 * @category services
 */
export class MessageService extends Context.Service<MessageService, {
  /** Sends and records an outbound SMS; answers the carrier's status. */
  readonly send: (
    organization: Organization,
    request: SendSmsRequest
  ) => Effect.Effect<{ readonly status: string }, PhoneNumberNotOwned | SmsNotEnabled | CarrierError>
  /** The organization's number, or PhoneNumberNotOwned. */
  readonly ownedNumber: (
    organization: Organization,
    phoneNumber: E164
  ) => Effect.Effect<OwnedPhoneNumber, PhoneNumberNotOwned>
  readonly listInbound: (
    query: InboundMessageQuery
  ) => Effect.Effect<{ readonly messages: ReadonlyArray<MessageRecord>; readonly hasMore: boolean }>
  readonly phoneNumbers: (organization: Organization) => Effect.Effect<ReadonlyArray<OwnedPhoneNumber>>
}>()("@voice-agent/core/MessageService") {
  static readonly layer = Layer.effect(
    MessageService,
    Effect.gen(function*() {
      const numbers = yield* PhoneNumberRepository
      const messages = yield* MessageRepository
      const carrier = yield* Carrier
      const ownedNumber = Effect.fn("MessageService.ownedNumber")(function*(
        organization: Organization,
        phoneNumber: E164
      ) {
        const [owned] = yield* numbers.findOwned(organization.id, [phoneNumber])
        if (owned === undefined) return yield* new PhoneNumberNotOwned({ phoneNumbers: [phoneNumber] })
        return owned
      })
      return MessageService.of({
        send: Effect.fn("MessageService.send")(function*(organization, request) {
          const sender = yield* ownedNumber(organization, request.from_number)
          if (!sender.smsEnabled) return yield* new SmsNotEnabled({ phoneNumber: sender.phoneNumber })
          const sent = yield* carrier.sendSms({
            from: sender.phoneNumber,
            to: request.to_number,
            body: request.message
          })
          yield* messages.insert({
            organizationId: organization.id,
            direction: "outbound",
            modality: "sms",
            fromNumber: sender.phoneNumber,
            toNumber: request.to_number,
            content: request.message,
            receivedAt: yield* nowDate,
            status: sent.status
          }, sent.messageId)
          return { status: sent.status }
        }),
        ownedNumber,
        listInbound: Effect.fn("MessageService.listInbound")((query) => messages.listInbound(query)),
        phoneNumbers: Effect.fn("MessageService.phoneNumbers")((organization) => numbers.list(organization.id))
      })
    })
  )
}
