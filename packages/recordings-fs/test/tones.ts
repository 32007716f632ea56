/**
 * The deterministic audio of the crash tests: the child process writes it, the test checks
 * what sox decodes against it.
 */

/** Samples `[first, first + count)` of a sine at `hz` (8 kHz, amplitude 12000). */
export const tone = (hz: number, first: number, count: number): Int16Array =>
  Int16Array.from({ length: count }, (_, i) => Math.round(12000 * Math.sin((2 * Math.PI * hz * (first + i)) / 8000)))

/** The frequency of each channel's tone. */
export const channelHz = { agent: 880, remote: 440 } as const
