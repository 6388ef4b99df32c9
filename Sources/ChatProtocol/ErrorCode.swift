/// The `code` values of an `error` message (PROTOCOL.md section 5).
public enum ErrorCode: String, Sendable, CaseIterable {
    case badJSON = "bad-json"
    case badField = "bad-field"
    case unknownType = "unknown-type"
    case tooLarge = "too-large"
    case notJoined = "not-joined"
    case badNick = "bad-nick"
    case nickInUse = "nick-in-use"
    case badRoom = "bad-room"
    case noSuchUser = "no-such-user"
    case rateLimited = "rate-limited"
    /// Version 1.1 (PROTOCOL.md section 12): a `join` beyond the rooms a connection may be in.
    case tooManyRooms = "too-many-rooms"

    // Version 1.1, accounts (section 7).
    /// `register` of a nick that is an account already, or from a connection logged in.
    case accountExists = "account-exists"
    /// A password shorter than 8 or longer than 256 bytes (or none, without a certificate).
    case weakPassword = "weak-password"
    /// A wrong account name or password, or too many wrong ones lately.
    case badLogin = "bad-login"
    /// A guest asking for a nick that is an account.
    case nickRegistered = "nick-registered"
    /// `password` or `certificate` from a guest.
    case notLoggedIn = "not-logged-in"
    /// A guest on a server or in a room that takes logged-in users only.
    case accountRequired = "account-required"

    // Version 1.1, moderation (section 8).
    case roomOwned = "room-owned"
    case notOperator = "not-operator"
    case banned
    case notInvited = "not-invited"
    /// A list the server keeps is full (bans, invites, operators of a room; certificates of an
    /// account): docs/PROTOCOL.md section 7-8.
    case quotaExceeded = "quota-exceeded"
    /// Version 1.1 (section 10): what the server would have to store or read cannot be, now.
    case unavailable

    // Version 1.1, files (section 9).
    /// The bytes of an upload do not have the SHA-256 its header named.
    case badChecksum = "bad-checksum"
    /// An upload's stream ended before `size` bytes.
    case incomplete
    /// A resumed upload's `offset` is not what the server holds (the error's `offset` is), or a
    /// download's is beyond the file.
    case badOffset = "bad-offset"
    /// No such file, or not one the asker may download.
    case noSuchFile = "no-such-file"

    // Version 1.2 (sections 15 to 17).
    /// The `ref` of an `edit`, `redact`, `react`, `unreact` or reply names no `msg`, `dm` or
    /// `file` event of that room or conversation.
    case noSuchMessage = "no-such-message"
    /// An `edit` by anyone but the author; a `redact` by someone neither author nor operator.
    case notAuthor = "not-author"
    /// A hello beyond the devices one account may have connected (section 16).
    case tooManyDevices = "too-many-devices"
}
