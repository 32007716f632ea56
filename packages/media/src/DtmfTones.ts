/**
 * DTMF digits as audio, for a wire that cannot carry DTMF events (Twilio Media Streams): each
 * digit is 100 ms of its two tones (ITU-T Q.23: a row frequency and a column frequency) then
 * 100 ms of silence; `w` (as in the reference SDK and Twilio's `sendDigits`) is half a second
 * of silence; any other character is skipped. Digits are case-insensitive (`a` is `A`).
 *
 * Samples are signed 16-bit PCM at 8 kHz, one fresh array per digit, so a player chunks them
 * as it chunks any other audio.
 *
 * @since 0.1.0
 */

const frequencies: Record<string, readonly [number, number]> = {
  "1": [697, 1209],
  "2": [697, 1336],
  "3": [697, 1477],
  "4": [770, 1209],
  "5": [770, 1336],
  "6": [770, 1477],
  "7": [852, 1209],
  "8": [852, 1336],
  "9": [852, 1477],
  "*": [941, 1209],
  "0": [941, 1336],
  "#": [941, 1477],
  "A": [697, 1633],
  "B": [770, 1633],
  "C": [852, 1633],
  "D": [941, 1633]
}

/**
 * The audio of `digits`, one array per digit (or pause) played.
 *
 * @category encoding
 */
export const encode = (digits: string): Array<Int16Array> =>
  digits.toUpperCase().split("").flatMap((digit) => {
    if (digit === "W") return [new Int16Array(4000)]
    const tones = frequencies[digit]
    if (tones === undefined) return []
    const samples = new Int16Array(1600)
    for (let i = 0; i < 800; i++) {
      const t = i / 8000
      samples[i] = Math.round(8000 * (Math.sin(2 * Math.PI * tones[0] * t) + Math.sin(2 * Math.PI * tones[1] * t)))
    }
    return [samples]
  })
