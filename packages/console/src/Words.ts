/**
 * Sentences the console writes from the API's values: a contact's eligibility in words, a
 * campaign's calling windows, a call's state.
 */
import type { BlockedReason, ContactEligibility } from "@voice-agent/core/Eligibility"
import { dayTime, weekdayTime } from "./Format.ts"

const days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const

/**
 * `Mon 09:00–17:00`.
 *
 * @category encoding
 */
export const callingWindow = (
  window: { readonly day: number; readonly start_time: string; readonly end_time: string }
) => `${days[window.day] ?? "?"} ${window.start_time}–${window.end_time}`

/**
 * What the eligibility explainer needs to know of the contact's campaign.
 *
 * @category models
 */
export interface CampaignFacts {
  readonly timezone: string
  readonly start_date: string
  readonly end_date: string | null
  readonly max_attempts: number
  readonly max_concurrency: number
}

const reasonWords = (reason: BlockedReason, campaign: CampaignFacts): string => {
  switch (reason) {
    case "paused":
      return "the campaign is paused"
    case "before_start_date":
      return `the campaign starts on ${campaign.start_date}`
    case "after_end_date":
      return `the campaign ended on ${campaign.end_date ?? "its end date"}`
    case "outside_calling_window":
      return "outside its calling window"
    case "retry_delay":
      return "waiting for its retry delay"
    case "attempts_exhausted":
      return campaign.max_attempts === 1 ? "its one attempt is used" : `all ${campaign.max_attempts} attempts are used`
    case "do_not_call":
      return "the number is on the Do-Not-Call list"
    case "in_progress":
      return "being called right now"
    case "final_status":
      return "it is finished (final status)"
    case "campaign_concurrency_full":
      return `the campaign's ${campaign.max_concurrency} call${campaign.max_concurrency === 1 ? " is" : "s are"} in use`
    case "organization_concurrency_full":
      return "the organization's call limit is reached"
  }
}

const WEEK = 6 * 86_400_000

/** Reasons that never pass by themselves (a paused campaign may resume). */
const finalReasons: ReadonlyArray<BlockedReason> = [
  "final_status",
  "attempts_exhausted",
  "do_not_call",
  "after_end_date"
]

/**
 * A contact's eligibility as a sentence, e.g. "outside its calling window: next call Tue 09:00
 * America/New_York". `now` is the page's clock (epoch ms), used to choose between a weekday and
 * a date for the next call.
 *
 * @category encoding
 */
export const eligibility = (value: ContactEligibility, campaign: CampaignFacts, now: number): string => {
  if (value.callable) return "callable now: it is called as soon as a line is free"
  const reasons = value.blocked_by.map((reason) => reasonWords(reason, campaign)).join("; ")
  if (value.next_eligible_at === null) {
    const never = value.blocked_by.some((reason) => finalReasons.includes(reason))
    return `${reasons}: ${never ? "it will not be called again" : "it is called once the campaign resumes"}`
  }
  const next = Date.parse(value.next_eligible_at)
  const when = next - now > WEEK ? dayTime(next, campaign.timezone) : weekdayTime(next, campaign.timezone)
  return `${reasons}: next call ${when} ${campaign.timezone}`
}

/**
 * True while a call has not ended: the API leaves its duration and reason null until then.
 *
 * @category guards
 */
export const inProgress = (
  call: { readonly duration_sec: number | null; readonly termination_reason: string | null }
) => call.duration_sec === null && call.termination_reason === null
