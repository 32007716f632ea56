/**
 * The SMS endpoints of the documented API (send, inbound list) and the organization's numbers.
 *
 * @since 0.1.0
 */
import { MessageList, Modality, SendSmsRequest, SendSmsResponse } from "@voice-agent/core/Message"
import { PhoneNumberResource } from "@voice-agent/core/Organization"
import { E164 } from "@voice-agent/core/PhoneNumber"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, InternalServerError, NotFound } from "./HttpErrors.ts"
import { Authorization, SmsSending } from "./Security.ts"
import { storableBody } from "./Storable.ts"

/**
 * `POST /v1/send-sms`, behind the SMS registration and billing checks.
 *
 * @category models
 */
export class SendSmsApi extends HttpApiGroup.make("sms")
  .add(
    HttpApiEndpoint.post("send", "/v1/send-sms", {
      payload: storableBody(SendSmsRequest),
      success: SendSmsResponse.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, InternalServerError]
    }).annotate(OpenApi.Summary, "Send an SMS")
  )
  .middleware(SmsSending)
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({ title: "SMS", description: "Sending SMS from the organization's numbers" }))
{}

/**
 * `GET /v1/messages` and `GET /v1/phone-numbers`.
 *
 * @category models
 */
export class MessagesApi extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.get("list", "/v1/messages", {
      query: {
        to_number: E164,
        start: Schema.optional(Schema.String),
        from_number: Schema.optional(E164),
        modality: Schema.optional(Modality),
        limit: Schema.optional(Schema.String)
      },
      success: MessageList,
      error: [BadRequest, NotFound]
    }).annotate(OpenApi.Summary, "List inbound messages"),
    HttpApiEndpoint.get("phoneNumbers", "/v1/phone-numbers", {
      success: Schema.Array(PhoneNumberResource)
    }).annotate(OpenApi.Summary, "List the organization's phone numbers")
  )
  .middleware(Authorization)
  .annotateMerge(
    OpenApi.annotations({ title: "Messages", description: "Inbound messages and the organization's numbers" })
  )
{}
