/**
 * The language and speech providers a self-hoster configured, by name (an agent definition
 * names its `llm`, `stt` and `tts`). The daemon builds it from its configuration; an embedder
 * may build it from services of its own. Keys stay inside the adapters: nothing here carries
 * one.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Option } from "effect"
import type { ChatModel } from "./ChatModel.ts"
import type { SpeechToSpeech } from "./SpeechToSpeech.ts"
import type { SpeechToText } from "./SpeechToText.ts"
import type { TextToSpeech } from "./TextToSpeech.ts"

/**
 * A definition's `llm` names either a chat model (the pipeline of speech-to-text, model and
 * text-to-speech) or a speech-to-speech model (which also hears and speaks).
 *
 * @category models
 */
export type LanguageProvider =
  | { readonly _tag: "Chat"; readonly model: ChatModel["Service"] }
  | { readonly _tag: "SpeechToSpeech"; readonly model: SpeechToSpeech["Service"] }

/**
 * @category services
 */
export class Providers extends Context.Service<Providers, {
  readonly llm: (name: string) => Option.Option<LanguageProvider>
  readonly stt: (name: string) => Option.Option<SpeechToText["Service"]>
  readonly tts: (name: string) => Option.Option<TextToSpeech["Service"]>
  /** The configured names, for checking a definition and for messages. */
  readonly names: {
    readonly llm: ReadonlyArray<string>
    readonly stt: ReadonlyArray<string>
    readonly tts: ReadonlyArray<string>
  }
}>()("@voice-agent/core/ports/Providers") {}
