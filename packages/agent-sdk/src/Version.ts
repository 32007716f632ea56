/**
 * The SDK's name and version, as sent in the `x-guava-sdk` and `x-guava-sdk-version` headers.
 *
 * @since 0.1.0
 */
import packageJson from "../package.json" with { type: "json" }

export const SDK_NAME = "voice-agent-typescript"

/** package.json's version: the one place it is written. */
export const SDK_VERSION: string = packageJson.version
