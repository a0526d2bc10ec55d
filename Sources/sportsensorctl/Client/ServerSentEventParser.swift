// SPDX-License-Identifier: GPL-2.0-or-later

/// One dispatched Server-Sent Events item: its `event:` name (`message` when absent) and its
/// `data:` lines joined with newlines.
struct ServerSentEvent: Hashable, Sendable {
    /// The event name.
    var event: String
    /// The data, lines joined with "\n".
    var data: String
    /// The last `id:` seen, if any.
    var id: String?
}

/// The Server-Sent Events stream format (WHATWG HTML, "Parsing an event stream") as a pure
/// struct: feed it bytes in whatever chunks the transport delivers; it returns the items whose
/// blank line has arrived. Lines end in LF, CR or CRLF, also when the CR and LF arrive in
/// different chunks; lines starting with `:` are comments; an item without data is dropped.
struct ServerSentEventParser: Sendable {
    /// A line longer than this is cut off (a protection against a stream that never ends a line).
    static let maximumLineLength = 1 << 20

    private var line: [UInt8] = []
    private var lineTooLong = false
    private var sawCarriageReturn = false
    private var eventName = ""
    private var dataLines: [String] = []
    private var hasData = false
    private var lastID: String?
    private var atStart = true

    /// A parser at the start of a stream.
    init() {}

    /// Parses the next bytes; returns the items completed by them, in order.
    mutating func push<Bytes: Sequence>(_ bytes: Bytes) -> [ServerSentEvent] where Bytes.Element == UInt8 {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if sawCarriageReturn {
                sawCarriageReturn = false
                if byte == 0x0A { continue }  // the LF of a CRLF split from its CR
            }
            switch byte {
            case 0x0D:
                sawCarriageReturn = true
                if let event = endLine() { events.append(event) }
            case 0x0A:
                if let event = endLine() { events.append(event) }
            default:
                if line.count < Self.maximumLineLength { line.append(byte) } else { lineTooLong = true }
            }
        }
        return events
    }

    /// Ends the stream: an item without its blank line is incomplete and is dropped, as the
    /// format requires.
    mutating func finish() {
        line.removeAll()
        resetItem()
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer {
            line.removeAll(keepingCapacity: true)
            lineTooLong = false
        }
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }  // a UTF-8 byte order mark
        }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") || lineTooLong { return nil }
        let field: String
        var value: Substring
        let text = String(decoding: line, as: UTF8.self)
        if let colon = text.firstIndex(of: ":") {
            field = String(text[..<colon])
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = text
            value = ""
        }
        switch field {
        case "event": eventName = String(value)
        case "data":
            dataLines.append(String(value))
            hasData = true
        case "id": if !value.contains("\0") { lastID = String(value) }
        default: break  // `retry` and unknown fields: nothing for this client to do
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer { resetItem() }
        guard hasData else { return nil }
        return ServerSentEvent(
            event: eventName.isEmpty ? "message" : eventName, data: dataLines.joined(separator: "\n"), id: lastID)
    }

    private mutating func resetItem() {
        eventName = ""
        dataLines.removeAll()
        hasData = false
    }
}
