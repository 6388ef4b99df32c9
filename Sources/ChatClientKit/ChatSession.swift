import ChatProtocol
import QuicIO

/// One qchat protocol session over one QUIC connection: it opens the chat stream with the first
/// `join`, then the presence stream with `status online` (PROTOCOL.md section 2), frames and
/// decodes messages, and reports what arrives. Lives on the event-loop thread of its driver.
public final class ChatSession {
    public enum Channel: Sendable { case chat, presence, datagram }

    public let connection: QuicConnection
    public let nick: String
    public let peer: String
    public let room: String
    public private(set) var chatStream: QuicStreamID?
    public private(set) var presenceStream: QuicStreamID?
    public private(set) var assignedNick: String?
    public private(set) var isOpen = true

    /// Every decoded message, with where it came from.
    public var onMessage: (ChatMessage, Channel) -> Void = { _, _ in }
    /// A message or framing problem on a stream from the server.
    public var onProblem: (String) -> Void = { _ in }
    public var onClose: (QuicCloseReason) -> Void = { _ in }
    /// The handshake is done and the first `join` is on its way.
    public var onConnected: () -> Void = {}
    /// Sent instead of the default first `join` and `status` (tests of bad first messages).
    public var firstMessages: [[UInt8]]?
    /// The status the presence stream opens with (a reconnecting client that was away stays away).
    public var initialStatus = "online"
    /// Its reason, when away (version 1.2).
    public var initialAway: String?
    /// The password of the account `nick` is, sent in the first `join` (PROTOCOL.md section 7).
    public var helloPassword: String?
    /// Events of file streams (8, 12, …; PROTOCOL.md section 9) go here, not to the chat decoder.
    public var onFileStreamEvent: (QuicEvent) -> Void = { _ in }

    private var chatDecoder = ChatStreamDecoder()
    private var presenceDecoder = ChatStreamDecoder()
    private let since: Int64?

    public init(connection: QuicConnection, nick: String, peer: String = ChatSession.randomPeerID(), room: String = "lobby",
                since: Int64? = nil) {
        self.connection = connection
        self.nick = nick
        self.peer = peer
        self.room = room
        self.since = since
    }

    /// Feeds one engine event of this session's connection.
    public func handle(_ event: QuicEvent) {
        if let stream = Self.stream(of: event), stream >= 8 { return onFileStreamEvent(event) }
        switch event {
        case .handshakeCompleted:
            guard let chat = try? connection.openStream() else { return }
            chatStream = chat
            if let custom = firstMessages {
                for bytes in custom { _ = try? connection.write(bytes, to: chat) }
            } else {
                sayHello()
                presenceStream = try? connection.openStream()
                var status = ChatMessage.status(initialStatus)
                status.away = initialAway
                sendPresence(status)
            }
            onConnected()
        case .streamData(let stream, let bytes, let fin):
            let channel: Channel = stream == presenceStream ? .presence : .chat
            var events = channel == .chat ? chatDecoder.feed(bytes) : presenceDecoder.feed(bytes)
            if fin { events += channel == .chat ? chatDecoder.finish() : presenceDecoder.finish() }
            for decoded in events {
                switch decoded {
                case .message(let message):
                    if message.type == "welcome" {
                        assignedNick = message.sender
                    } else if message.type == "nick", let own = assignedNick, message.sender == own, !message.text.isEmpty {
                        // Our own rename (a `nick`, or a `login` that took the account's nick).
                        assignedNick = message.text
                    }
                    onMessage(message, channel)
                case .malformed(let error, _): onProblem("malformed message from server: \(error)")
                case .fatal(let error): onProblem("framing error from server: \(error)")
                }
            }
        case .datagram(let bytes):
            if let message = try? ChatMessage.decode(bytes) { onMessage(message, .datagram) }
        case .closed(let reason):
            isOpen = false
            onClose(reason)
        default:
            break
        }
    }

    /// The stream an event is about, if any.
    static func stream(of event: QuicEvent) -> QuicStreamID? {
        switch event {
        case .streamOpened(let stream), .streamData(let stream, _, _), .streamReset(let stream, _), .streamWritable(let stream),
             .streamClosed(let stream):
            stream
        default:
            nil
        }
    }

    /// The first `join`: nick, peer, room, `since` and password as the session was made.
    private func sayHello() {
        send(.join(nick: nick, peer: peer, room: room, since: since, password: helloPassword))
    }

    /// A hello the server could not take now (``isRefusedForNow(_:)``) is sent again after a
    /// random 0.5-1.5 s, as long as this session waits for its `welcome` (`waiting` says whether
    /// it still does), so that a busy node is not hit by every client at once.
    public func sayHelloAgain(on loop: EventLoop, while waiting: @escaping () -> Bool) {
        var random = SystemRandomNumberGenerator()
        loop.schedule(at: .now() + .milliseconds(UInt64.random(in: 500...1500, using: &random))) { [weak self] in
            guard let self, isOpen, assignedNick == nil, waiting() else { return }
            sayHello()
        }
    }

    /// Whether `message` refuses a hello only for now: `unavailable` (a node not yet in its
    /// cluster, or without its store) or `rate-limited` (a server busy checking passwords).
    public static func isRefusedForNow(_ message: ChatMessage) -> Bool {
        message.type == MessageType.error.rawValue
            && (message.code == ErrorCode.unavailable.rawValue || message.code == ErrorCode.rateLimited.rawValue)
    }

    /// Sends a message on the chat stream.
    public func send(_ message: ChatMessage) {
        guard let chatStream else { return }
        _ = try? connection.write(OutboundBytes(message.encodedLine()), to: chatStream)
    }

    /// Sends a message on the presence stream.
    public func sendPresence(_ message: ChatMessage) {
        if presenceStream == nil { presenceStream = try? connection.openStream() }
        guard let presenceStream else { return }
        _ = try? connection.write(OutboundBytes(message.encodedLine()), to: presenceStream)
    }

    /// Sends raw bytes on the chat stream (tests of malformed input).
    public func sendRaw(_ bytes: [UInt8]) {
        guard let chatStream else { return }
        _ = try? connection.write(bytes, to: chatStream)
    }

    /// Sends a typing indicator as a datagram; false when the server takes no datagrams.
    @discardableResult
    public func sendTyping(room: String, typing: Bool) -> Bool {
        (try? connection.sendDatagram(ChatMessage.typing(room: room, isTyping: typing).encodedDatagram())) != nil
    }

    public func quit() { connection.close(applicationCode: CloseCode.noError.rawValue, reason: "quit") }

    /// A random version-4 UUID, upper-case like Foundation's.
    public static func randomPeerID() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }
}
