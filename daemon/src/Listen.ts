/**
 * Live listen in the daemon (engine/ListenRoute), with the API's validation errors.
 *
 * @since 0.1.0
 */
import * as ListenRoute from "@voice-agent/engine/ListenRoute"
import { detailOf } from "@voice-agent/http/handlers/Validation"

/**
 * The endpoint.
 *
 * @category layers
 */
export const endpoint = ListenRoute.endpoint((issue) => detailOf(issue, "query"))
