/**
 * `@voice-agent/agent-sdk`: remote voice agents in TypeScript over the agent protocol v2.
 * Each module is also importable on its own (`@voice-agent/agent-sdk/ReliableSocket`, …).
 *
 * @since 0.1.0
 */
export type { CloseReason } from "@voice-agent/agent-protocol/Envelope"
export { isJsonValue } from "@voice-agent/agent-protocol/Json"
export type { JsonObject, JsonValue } from "@voice-agent/agent-protocol/Json"
export { Agent } from "./Agent.ts"
export type { AgentOptions, CallPhoneOptions, CampaignOptions, ListenOptions, SocketTuning } from "./Agent.ts"
export type { Campaign } from "./Api.ts"
export { Call } from "./Call.ts"
export type { Persona, TaskOptions, VoicemailAction } from "./Call.ts"
export type { CallInfo, PstnCallInfo, SipCallInfo, WebrtcCallInfo } from "./CallInfo.ts"
export type { CallDisconnected, CallEnded, CallFailed, CallOutcome } from "./CallOutcome.ts"
export { Field, isDateValue, Say } from "./Checklist.ts"
export type { ChecklistItem, DateValue, FieldOptions } from "./Checklist.ts"
export type { ActionItem, Command, DtmfDigit, FieldType, Language } from "./Commands.ts"
export { DEFAULT_BASE_URL, resolveConnection } from "./Config.ts"
export type { Connection, ConnectionOptions } from "./Config.ts"
export { ApiError, ConfigError, SendBufferFullError, SocketClosedError } from "./Errors.ts"
export type {
  AgentSpeech,
  CallerSpeech,
  CallEvent,
  DtmfPressed,
  OutboundCallFailed,
  SessionEnded,
  TerminationReason
} from "./Events.ts"
export type { Awaitable, CallDecision, SearchResult, SuggestedAction } from "./Hooks.ts"
export { defaultLogger, silentLogger, stderrLogger } from "./Logger.ts"
export type { Logger, LogLevel } from "./Logger.ts"
export { AVAILABILITY_FIELD, defaultReachPersonOutcomes, REACH_PERSON_TASK } from "./ReachPerson.ts"
export type { ReachPersonOptions, ReachPersonOutcome } from "./ReachPerson.ts"
export { ReliableSocket } from "./ReliableSocket.ts"
export type { CloseInfo, ReliableSocketOptions, SocketState } from "./ReliableSocket.ts"
export { SDK_NAME, SDK_VERSION } from "./Version.ts"
