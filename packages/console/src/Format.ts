/**
 * How the console writes times, durations and numbers. Every instant is shown with the zone it
 * is shown in (the campaign's zone for campaign matters, the browser's otherwise).
 */

/**
 * The browser's IANA zone.
 *
 * @category constructors
 */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone

const formats = new Map<string, Intl.DateTimeFormat>()

const formatter = (zone: string, options: Intl.DateTimeFormatOptions, key: string): Intl.DateTimeFormat => {
  const id = `${key}|${zone}`
  let format = formats.get(id)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: zone, hourCycle: "h23" })
    formats.set(id, format)
  }
  return format
}

/**
 * `Sat 21 Nov 2026, 05:10:03 Europe/Paris`.
 *
 * @category encoding
 */
export const dateTime = (instant: string | number | Date, zone: string = browserZone()): string =>
  `${
    formatter(zone, {
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit"
    }, "full").format(new Date(instant))
  } ${zone}`

/**
 * `Tue 09:00` in `zone` (no zone name: the caller writes it once).
 *
 * @category encoding
 */
export const weekdayTime = (instant: number, zone: string): string =>
  formatter(zone, { weekday: "short", hour: "2-digit", minute: "2-digit" }, "weekday").format(new Date(instant))

/**
 * `Tue 3 Dec, 09:00` in `zone`.
 *
 * @category encoding
 */
export const dayTime = (instant: number, zone: string): string =>
  formatter(zone, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" }, "day")
    .format(new Date(instant))

/**
 * `1:05` for 65 seconds; `–` while unknown.
 *
 * @category encoding
 */
export const duration = (seconds: number | null): string =>
  seconds === null ? "–" : `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`

/**
 * `0:03.2` for 3,200 ms: a position in a recording.
 *
 * @category encoding
 */
export const position = (ms: number): string => {
  const seconds = ms / 1000
  return `${Math.floor(seconds / 60)}:${(seconds % 60).toFixed(1).padStart(4, "0")}`
}

/**
 * `25,000`.
 *
 * @category encoding
 */
export const count = (n: number): string => n.toLocaleString("en-US")

/**
 * `1,900 ms`; `–` for no figure.
 *
 * @category encoding
 */
export const ms = (n: number | null): string => (n === null ? "–" : `${count(n)} ms`)
