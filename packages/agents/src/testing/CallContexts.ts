/**
 * Call contexts for tests of agents: an answered outbound call outside any campaign.
 *
 * @since 0.1.0
 */
import type { CallContext } from "@voice-agent/core/ports/Agent"

/**
 * An outbound call from +12025550100 to +12025550101 that a person answered.
 *
 * @category fixtures
 */
export const outbound: CallContext = {
  callId: "call-1",
  conversationId: "conversation-1",
  direction: "outbound",
  from: "+12025550100",
  to: "+12025550101",
  campaignId: null,
  contactId: null,
  data: {},
  answeredBy: "human"
}
