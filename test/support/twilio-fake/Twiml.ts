/**
 * The TwiML the fake Twilio understands (twilio.com/docs/voice/twiml/stream), parsed from the text an
 * application answered: a `<Response>` document whose verbs run in order.
 *
 * - `<Connect><Stream url=… name=… track=…><Parameter name=… value=…/></Stream></Connect>`: a
 *   bidirectional Media Stream; the call waits on it, and goes on with the next verb when the
 *   application closes it.
 * - `<Reject reason="rejected|busy"/>`, `<Hangup/>`.
 * - `<Dial>` a number (twilio.com/docs/voice/twiml/dial): its text (`<Dial>+15558675310</Dial>`),
 *   or its `<Number>` nouns; the call is bridged to the first one, and goes on with the next verb
 *   when that leg ends. Other nouns (`<Client>`, `<Sip>`, `<Conference>`…) are kept by name.
 * - Any other verb (`<Say>`, `<Pause>`, `<Start>`…) is kept by name as `Other`: the fake does
 *   not play it and goes on.
 *
 * The XML reader is small and strict where Twilio is (one root element, tags closed in order,
 * attributes quoted); it decodes the five named entities and numeric character references,
 * skips the XML declaration, comments and processing instructions, and keeps CDATA as text.
 *
 * @since 0.1.0
 */

/**
 * An XML element.
 *
 * @category models
 */
export interface Element {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: ReadonlyArray<Element>
  /** The element's own text (not its children's), trimmed. */
  readonly text: string
}

/**
 * A `<Parameter>` of a stream.
 *
 * @category models
 */
export interface StreamParameter {
  readonly name: string
  readonly value: string
}

/**
 * A verb of a TwiML document.
 *
 * @category models
 */
export type Verb =
  | {
    readonly _tag: "Connect"
    /** The `<Stream>` it holds, when it holds one. */
    readonly stream: {
      readonly url: string
      readonly name: string | undefined
      readonly track: string | undefined
      readonly parameters: ReadonlyArray<StreamParameter>
    } | undefined
  }
  | { readonly _tag: "Reject"; readonly reason: "rejected" | "busy" }
  /** The numbers dialed (the text, else each `<Number>`), and the other nouns by name. */
  | { readonly _tag: "Dial"; readonly numbers: ReadonlyArray<string>; readonly nouns: ReadonlyArray<string> }
  | { readonly _tag: "Hangup" }
  | { readonly _tag: "Other"; readonly name: string }

const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" }

const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16))
    if (ref.startsWith("#")) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10))
    return named[ref] ?? whole
  })

interface Building {
  readonly name: string
  readonly attributes: Record<string, string>
  readonly children: Array<Element>
  text: string
}

const NAME = /^[A-Za-z_][\w.-]*/
const ATTRIBUTE = /^\s+([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/

/**
 * Parses an XML document into its root element, or answers why it is not well-formed.
 *
 * @category parsing
 */
export const parseXml = (xml: string): Element | string => {
  const stack: Array<Building> = []
  let root: Element | undefined
  let at = 0
  const close = (building: Building): Element => ({ ...building, text: decodeEntities(building.text).trim() })
  while (at < xml.length) {
    const lt = xml.indexOf("<", at)
    const text = xml.slice(at, lt === -1 ? xml.length : lt)
    if (text.trim() !== "") {
      const top = stack.at(-1)
      if (top === undefined) return "text outside the root element"
      top.text += text
    }
    if (lt === -1) break
    if (xml.startsWith("<?", lt)) {
      const end = xml.indexOf("?>", lt)
      if (end === -1) return "unterminated processing instruction"
      at = end + 2
    } else if (xml.startsWith("<!--", lt)) {
      const end = xml.indexOf("-->", lt)
      if (end === -1) return "unterminated comment"
      at = end + 3
    } else if (xml.startsWith("<![CDATA[", lt)) {
      const end = xml.indexOf("]]>", lt)
      const top = stack.at(-1)
      if (end === -1 || top === undefined) return "misplaced CDATA section"
      top.text += xml.slice(lt + 9, end).replace(/&/g, "&amp;").replace(/</g, "&lt;")
      at = end + 3
    } else if (xml.startsWith("</", lt)) {
      const name = NAME.exec(xml.slice(lt + 2))?.[0]
      const end = xml.indexOf(">", lt)
      const top = stack.pop()
      if (name === undefined || end === -1 || top === undefined || top.name !== name) {
        return `unexpected closing tag ${xml.slice(lt, end === -1 ? undefined : end + 1)}`
      }
      const element = close(top)
      const parent = stack.at(-1)
      if (parent === undefined) root = element
      else parent.children.push(element)
      at = end + 1
    } else {
      const name = NAME.exec(xml.slice(lt + 1))?.[0]
      if (name === undefined) return `malformed tag at ${lt}`
      if (root !== undefined) return "more than one root element"
      let rest = xml.slice(lt + 1 + name.length)
      const attributes: Record<string, string> = {}
      for (let match = ATTRIBUTE.exec(rest); match !== null; match = ATTRIBUTE.exec(rest)) {
        const attribute = match[1]!
        if (attribute in attributes) return `attribute ${attribute} repeated on <${name}>`
        attributes[attribute] = decodeEntities(match[2] ?? match[3] ?? "")
        rest = rest.slice(match[0].length)
      }
      const end = /^\s*(\/?)>/.exec(rest)
      if (end === null) return `malformed tag <${name}>`
      at = xml.length - rest.length + end[0].length
      const building: Building = { name, attributes, children: [], text: "" }
      if (end[1] === "/") {
        const parent = stack.at(-1)
        if (parent === undefined) root = close(building)
        else parent.children.push(close(building))
      } else {
        stack.push(building)
      }
    }
  }
  if (stack.length > 0) return `<${stack.at(-1)!.name}> is not closed`
  return root ?? "no root element"
}

/**
 * The verbs of a TwiML document, in order, or why Twilio would not run it (not XML, or not a
 * `<Response>`).
 *
 * @category parsing
 */
export const parse = (twiml: string): ReadonlyArray<Verb> | string => {
  const root = parseXml(twiml)
  if (typeof root === "string") return root
  if (root.name !== "Response") return `the root element is <${root.name}>, not <Response>`
  return root.children.map((verb): Verb => {
    switch (verb.name) {
      case "Connect": {
        const stream = verb.children.find((child) => child.name === "Stream")
        return {
          _tag: "Connect",
          stream: stream === undefined ? undefined : {
            url: stream.attributes.url ?? "",
            name: stream.attributes.name,
            track: stream.attributes.track,
            parameters: stream.children.filter((child) => child.name === "Parameter").map((parameter) => ({
              name: parameter.attributes.name ?? "",
              value: parameter.attributes.value ?? ""
            }))
          }
        }
      }
      case "Reject":
        return { _tag: "Reject", reason: verb.attributes.reason === "busy" ? "busy" : "rejected" }
      case "Hangup":
        return { _tag: "Hangup" }
      case "Dial": {
        const numbers = verb.children.filter((child) => child.name === "Number").map((child) => child.text)
        return {
          _tag: "Dial",
          numbers: verb.text === "" ? numbers : [verb.text, ...numbers],
          nouns: verb.children.filter((child) => child.name !== "Number").map((child) => child.name)
        }
      }
      default:
        return { _tag: "Other", name: verb.name }
    }
  })
}
