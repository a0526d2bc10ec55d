// SPDX-License-Identifier: GPL-2.0-or-later

/// A gateway event as the gateway publishes it: the event and its payload, encoded once when it
/// is published, so every subscriber (each `GET /v1/events` stream) sends the same text and none
/// encodes it again.
public struct PublishedEvent: Hashable, Sendable {
    /// The event.
    public let event: GatewayEvent
    /// `event.payloadJSON()` as text (one line); nil when it could not be encoded.
    public let payloadJSON: String?
    /// Why the payload could not be encoded (a number JSON cannot carry); nil when it was.
    public let encodingFailure: String?

    /// Encodes `event`'s payload.
    public init(_ event: GatewayEvent) {
        self.event = event
        do {
            payloadJSON = String(decoding: try event.payloadJSON(), as: UTF8.self)
            encodingFailure = nil
        } catch {
            payloadJSON = nil
            encodingFailure = "\(error)"
        }
    }
}
