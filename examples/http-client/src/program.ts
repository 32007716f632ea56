/**
 * A typed client for a running voice-agent daemon, derived from the same HttpApi definition
 * the server is built from (`@voice-agent/http/api/Api`): paths, bodies and answers are
 * checked by the compiler, errors arrive typed.
 */
import { Api } from "@voice-agent/http/api/Api"
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"

/** A client that sends `Authorization: Bearer <apiKey>` with every request. */
export const makeClient = (options: { readonly apiKey: string; readonly baseUrl?: string | undefined }) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(options.apiKey))
  })

/** Creates a campaign from the organization's first number, uploads two contacts, reads status. */
export const program = (options: { readonly apiKey: string; readonly baseUrl?: string | undefined }) =>
  Effect.gen(function*() {
    const client = yield* makeClient(options)
    const [origin] = yield* client.messages.phoneNumbers()
    if (origin === undefined) return yield* Effect.fail("the organization owns no phone number")
    const campaign = yield* client.campaigns.create({
      payload: {
        name: `Renewals ${options.apiKey.slice(-6)}`,
        origin_phone_numbers: [origin.phone_number],
        start_date: "2026-11-01",
        calling_windows: [{ day: 0, start_time: "09:00", end_time: "17:00" }]
      }
    })
    const uploaded = yield* client.contacts.upload({
      params: { campaign_code: campaign.campaign_code },
      query: { accepted_terms_of_service: "true" },
      payload: {
        contacts: [{ phone_number: "202-555-0131" }, { phone_number: "202-555-0132", data: { plan: "gold" } }]
      }
    })
    const status = yield* client.campaigns.status({ params: { campaign_code: campaign.campaign_code } })
    const page = yield* client.contacts.list({ query: { campaign_code: campaign.campaign_code, limit: "1" } })
    return { campaign, uploaded, status, page }
  })
