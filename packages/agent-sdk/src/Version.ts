/**
 * The SDK's name and version, as sent in the `x-guava-sdk` and `x-guava-sdk-version` headers.
 *
 * @since 0.1.0
 */

export const SDK_NAME = "voice-agent-typescript"

/** Kept equal to package.json's version (a test checks). */
export const SDK_VERSION = "0.1.0"
