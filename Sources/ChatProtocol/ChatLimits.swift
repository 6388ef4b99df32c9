/// The numeric limits of the qchat wire protocol (PROTOCOL.md sections 1, 3 and 4).
///
/// They live in one place so that the server, the client and the tests cannot drift apart.
public enum ChatLimits {
    /// A stream message may be at most this many bytes, its terminating LF included.
    public static let maxStreamMessageBytes = 65_536

    /// The longest JSON object a stream may carry: one byte is reserved for the LF.
    public static let maxObjectBytes = maxStreamMessageBytes - 1

    /// Both sides advertise this `max_datagram_frame_size`.
    public static let maxDatagramFrameBytes = 1_200

    /// Nicks are 1 to this many characters.
    public static let maxNickLength = 24

    /// Room names are 1 to this many characters.
    public static let maxRoomLength = 32

    /// The `text` of a `msg` or `dm` is 1 to this many bytes of UTF-8, after sanitising.
    public static let maxTextBytes = 4_096

    /// Nesting deeper than this inside one message is rejected as `bad-json`.
    ///
    /// No message of the protocol nests deeper than 2; the limit keeps the recursive
    /// value skipper from overflowing the stack on hostile input such as `[[[[...`.
    public static let maxNestingDepth = 64

    /// The `id` of a `msg`, `dm` or `upload` is 1 to this many bytes (PROTOCOL.md section 12).
    public static let maxMessageIDBytes = 64

    /// Client input quoted in an `error` text is cut to this many characters.
    public static let maxExcerptCharacters = 32

    /// A password is 8 to 256 bytes of UTF-8 (PROTOCOL.md section 7).
    public static let passwordBytes = 8...256

    /// A topic is at most this many bytes of UTF-8, after removing control characters (section 8).
    public static let maxTopicBytes = 512
    /// A quit message's bytes at most (longer ones are cut at a character): it lives in `left`
    /// events' text.
    public static let maxQuitMessageBytes = 200

    /// `rooms` lists at most this many rooms, most members first (section 8).
    public static let maxRoomsListed = 1_000

    /// A file's name (`text` of `upload` and `file`) is 1 to this many bytes of UTF-8 (section 9).
    public static let maxFileNameBytes = 255

    /// A file's `sha256` is this many lowercase hex digits.
    public static let sha256HexDigits = 64

    /// A client has at most this many file streams open at once (section 9).
    public static let maxFileStreams = 4

    /// The server's default `--max-file-size`: 100 MiB.
    public static let defaultMaxFileSize: Int64 = 100 << 20

    // Version 1.2 (PROTOCOL.md section 16).

    /// Connections logged in to one account at once, by default: beyond it a hello is
    /// `error too-many-devices`.
    public static let defaultMaxDevicesPerAccount = 16
    /// Rooms kept per account, by default (as rooms per connection).
    public static let defaultMaxRoomsPerAccount = 100
    /// A conversation keeps at least its last this many messages, whatever `--history` says.
    public static let minConversationHistory = 1_000
    /// A reaction (`text` of `react`/`unreact`) is 1 to this many bytes of UTF-8, without spaces
    /// or control characters.
    public static let maxReactionBytes = 32
    /// Distinct reaction values on one message at most: beyond it `error bad-field`.
    public static let maxDistinctReactions = 20
    /// A search's `text` is 1 to this many bytes, of 1 to ``maxSearchWords`` words.
    public static let maxSearchTextBytes = 256
    public static let maxSearchWords = 8
    /// `found` carries at most this many events (`limit`'s default and ceiling).
    public static let maxSearchResults = 50
    /// An away reason is at most this many bytes of UTF-8 (longer is `bad-field`).
    public static let maxAwayReasonBytes = 256

    /// The room a message without `room` refers to.
    public static let defaultRoom = "lobby"
}
