/**
 * Key presses as SIPp replays them (`play_pcap_audio`): a pcap capture (Ethernet, IPv4, UDP) of
 * RFC 4733 telephone-events (payload type 101, as the kit's trunk offers it), one press after
 * another. SIPp sends each packet's RTP from its media port to the call's RTP address, at the
 * capture's pace.
 *
 * @since 0.1.0
 */
import * as Rtp from "@voice-agent/carrier-sip/Rtp"
import * as TelephoneEvent from "@voice-agent/carrier-sip/TelephoneEvent"

/** The telephone-event payload type the kit's trunk offers (`a=rtpmap:101 telephone-event/8000`). */
const PAYLOAD_TYPE = 101

const udpPacket = (rtp: Uint8Array): Uint8Array => {
  const ip = 20
  const udp = 8
  const frame = new Uint8Array(14 + ip + udp + rtp.length)
  const view = new DataView(frame.buffer)
  view.setUint16(12, 0x0800) // IPv4; MAC addresses left zero
  frame[14] = 0x45
  view.setUint16(16, ip + udp + rtp.length)
  frame[22] = 64 // TTL
  frame[23] = 17 // UDP
  frame.set([127, 0, 0, 1], 26)
  frame.set([127, 0, 0, 1], 30)
  let sum = 0
  for (let i = 14; i < 14 + ip; i += 2) sum += view.getUint16(i)
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16)
  view.setUint16(24, ~sum & 0xffff)
  view.setUint16(34, 40000) // ports: SIPp rewrites them
  view.setUint16(36, 40000)
  view.setUint16(38, udp + rtp.length) // checksum 0: none (IPv4)
  frame.set(rtp, 14 + ip + udp)
  return frame
}

/**
 * The capture of `digits` pressed one after the other: each 100 ms, then `gapMs` of nothing.
 *
 * @category constructors
 */
export const presses = (digits: string, gapMs = 300): Uint8Array => {
  const records: Array<Uint8Array> = []
  let atMs = 0
  let sequence = 1000
  let timestamp = 8000
  for (const digit of digits) {
    const packets = TelephoneEvent.press(digit, 100)
    packets.forEach((packet, i) => {
      const rtp = Rtp.encode({
        payloadType: PAYLOAD_TYPE,
        marker: packet.marker,
        sequence: sequence++,
        timestamp,
        ssrc: 0x5199c4ec,
        payload: packet.payload
      })
      const frame = udpPacket(rtp)
      const ms = atMs + Math.min(i, packets.length - 3) * 20
      const header = new DataView(new ArrayBuffer(16))
      header.setUint32(0, Math.floor(ms / 1000), true)
      header.setUint32(4, (ms % 1000) * 1000, true)
      header.setUint32(8, frame.length, true)
      header.setUint32(12, frame.length, true)
      records.push(new Uint8Array(header.buffer), frame)
    })
    const lengthMs = (packets.length - 3) * 20 + 20
    atMs += lengthMs + gapMs
    timestamp += (lengthMs + gapMs) * 8
  }
  const global = new DataView(new ArrayBuffer(24))
  global.setUint32(0, 0xa1b2c3d4, true)
  global.setUint16(4, 2, true)
  global.setUint16(6, 4, true)
  global.setUint32(16, 65535, true)
  global.setUint32(20, 1, true) // Ethernet
  const out = new Uint8Array(24 + records.reduce((n, r) => n + r.length, 0))
  out.set(new Uint8Array(global.buffer))
  let offset = 24
  for (const record of records) {
    out.set(record, offset)
    offset += record.length
  }
  return out
}
