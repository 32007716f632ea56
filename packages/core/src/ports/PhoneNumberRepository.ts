/**
 * Storage port for the phone numbers organizations own. A number has at most one owner.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Option } from "effect"
import type { OrganizationNotFound, PhoneNumberTaken } from "../Errors.ts"
import type { OwnedPhoneNumber } from "../Organization.ts"
import type { E164 } from "../PhoneNumber.ts"

/**
 * @category services
 */
export class PhoneNumberRepository extends Context.Service<PhoneNumberRepository, {
  readonly add: (
    organizationId: string,
    number: { readonly phoneNumber: E164; readonly smsEnabled: boolean }
  ) => Effect.Effect<OwnedPhoneNumber, OrganizationNotFound | PhoneNumberTaken>
  /** The organization's numbers, in number order. */
  readonly list: (organizationId: string) => Effect.Effect<ReadonlyArray<OwnedPhoneNumber>>
  /** Those of `phoneNumbers` that the organization owns (one query). */
  readonly findOwned: (
    organizationId: string,
    phoneNumbers: ReadonlyArray<E164>
  ) => Effect.Effect<ReadonlyArray<OwnedPhoneNumber>>
  /** Who owns a number (inbound calls and messages are routed by it). */
  readonly findOwner: (phoneNumber: E164) => Effect.Effect<Option.Option<OwnedPhoneNumber>>
}>()("@voice-agent/core/ports/PhoneNumberRepository") {}
