/**
 * The TwiML documents the daemon answers Twilio's webhooks with (twilio.com/docs/voice/twiml/stream,
 * twilio.com/docs/messaging/guides/webhook-request): a call's media stream, the refusal of an inbound call, and the empty answer to an SMS;
 * and the one a live call is updated to when the agent transfers it (`<Dial>`).
 * Pure: data in, the document's text out.
 *
 * The text is what twilio-node's `VoiceResponse`/`MessagingResponse` print for the same
 * document, byte for byte: the XML declaration, no whitespace between elements, empty elements
 * self-closed (`<Response/>`, `<Reject/>`), attributes in double quotes. Attribute values are
 * escaped as its XML builder escapes them (`&`, `<`, `"`, tab, line feed, carriage return), except
 * that every `&` is escaped, even one that already starts an entity, so a value always reads
 * back as itself. Other control characters cannot appear in XML 1.0 and are dropped.
 *
 * Owns the documents only: which one a webhook answers, the media URL and the token are the
 * daemon's (Twilio drops query strings from `<Stream url>`, so the call's token travels as a
 * `<Parameter>`, which the stream's `start` message carries back in `customParameters`).
 *
 * @since 0.1.0
 */

/**
 * The `Content-Type` of a TwiML answer.
 *
 * @category encoding
 */
export const contentType = "text/xml"

const declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"

const attributeEscapes: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  "\"": "&quot;",
  "\t": "&#x9;",
  "\n": "&#xA;",
  "\r": "&#xD;"
}

/**
 * An attribute value as it is written between double quotes.
 *
 * @category encoding
 */
export const escapeAttribute = (value: string): string =>
  value
    // oxlint-disable-next-line no-control-regex -- the control characters XML 1.0 cannot hold
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "")
    .replace(/[&<"\t\n\r]/g, (char) => attributeEscapes[char]!)

/**
 * A bidirectional media stream for the call (`<Connect><Stream>`): Twilio connects to `url`
 * (`wss://`; Twilio drops a query string) and sends each parameter in the stream's `start`
 * message (`customParameters`). Twilio wants each parameter's name and value under 500
 * characters together. With `<Connect>` and nothing after it, the call ends when the server
 * closes the stream.
 *
 * @category encoding
 */
export const connectStream = (stream: {
  readonly url: string
  readonly parameters?: Readonly<Record<string, string>> | undefined
}): string => {
  const parameters = Object.entries(stream.parameters ?? {}).map(([name, value]) =>
    `<Parameter name="${escapeAttribute(name)}" value="${escapeAttribute(value)}"/>`
  )
  const open = `<Stream url="${escapeAttribute(stream.url)}"`
  const element = parameters.length === 0 ? `${open}/>` : `${open}>${parameters.join("")}</Stream>`
  return `${declaration}<Response><Connect>${element}</Connect></Response>`
}

const textEscapes: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" }

/**
 * Dials `number` (E.164) and bridges the call to it (`<Dial>`): what a live call is updated to
 * when the agent transfers it. With nothing after it, the call ends when the dialed party
 * hangs up (or does not answer).
 *
 * @category encoding
 */
export const dial = (number: string): string =>
  `${declaration}<Response><Dial>${
    // oxlint-disable-next-line no-control-regex -- the control characters XML 1.0 cannot hold
    number.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "").replace(/[&<>]/g, (char) =>
      textEscapes[char]!)}</Dial></Response>`

/**
 * Refuses an inbound call (one to a number we cannot serve): Twilio does not answer it.
 *
 * @category encoding
 */
export const reject = `${declaration}<Response><Reject/></Response>`

/**
 * Nothing to do: the answer to an incoming SMS we do not reply to (Twilio reports error 11200
 * for an empty HTTP body, so the document is sent even then).
 *
 * @category encoding
 */
export const empty = `${declaration}<Response/>`
