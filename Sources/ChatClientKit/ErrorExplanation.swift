import ChatProtocol

/// An `error` of accounts and moderation (PROTOCOL.md sections 7 and 8) in words a person reads:
/// the server's own text, which says what went wrong, and where there is one what to do about it;
/// the client's words for it only when the server gave none. Said once: `banned` with "you are
/// banned from room 'ops'" reads "you are banned from room 'ops'", not that twice over (issue 24,
/// defect 12). The version 1 codes keep the server's text alone.
public enum ErrorExplanation {
    public static func text(code: String?, serverText: String) -> String {
        guard let code, let words = explanations[code] else { return serverText.isEmpty ? (code ?? "error") : serverText }
        return (serverText.isEmpty ? words.meaning : serverText) + (words.advice.map { ": " + $0 } ?? "")
    }

    /// An `error` as ``text(code:serverText:)`` says it, except a message given up after many
    /// `unavailable` answers (docs/PROTOCOL.md section 10): `stored: false` means it was not
    /// stored (sending it again is safe); otherwise it may have been, and a person who types it
    /// again may show it twice.
    public static func text(of message: ChatMessage) -> String {
        guard message.code == ErrorCode.unavailable.rawValue, message.id != nil, message.type == MessageType.error.rawValue else {
            return text(code: message.code, serverText: message.text)
        }
        let sentence = message.stored == false ? "Not sent: the server could not store it; send it again"
            : "The server could not confirm it was stored: it may have been delivered; check before sending it again"
        return message.text.isEmpty ? sentence : "\(sentence) (\(message.text))"
    }

    static let explanations: [String: (meaning: String, advice: String?)] = [
        ErrorCode.accountExists.rawValue: ("That account exists already, or you are logged in", nil),
        ErrorCode.weakPassword.rawValue: ("The password must be 8 to 256 bytes", nil),
        ErrorCode.badLogin.rawValue: ("Wrong account name or password", "after 5 wrong ones, wait a minute"),
        ErrorCode.nickRegistered.rawValue: ("That nick is someone's account", "/login to it if it is yours"),
        ErrorCode.notLoggedIn.rawValue: ("You are not logged in", "/register or /login first"),
        ErrorCode.accountRequired.rawValue: ("Only logged-in users may do that here", "/register or /login"),
        ErrorCode.roomOwned.rawValue: ("The room has an owner already", nil),
        ErrorCode.notOperator.rawValue: ("You are not allowed to do that here", nil),
        ErrorCode.banned.rawValue: ("You are banned", nil),
        ErrorCode.notInvited.rawValue: ("The room is invite-only", "ask an operator for an /invite"),
        ErrorCode.quotaExceeded.rawValue: ("That list is full", nil),
        ErrorCode.unavailable.rawValue: ("The server cannot do that right now", "try again"),
        // Version 1.2 (PROTOCOL.md sections 15-17).
        ErrorCode.noSuchMessage.rawValue: ("There is no such message there (or it is no longer stored)", nil),
        ErrorCode.notAuthor.rawValue: ("Only the message's author may do that", nil),
        ErrorCode.tooManyDevices.rawValue: ("Too many devices are connected to this account", "close one, or connect with another nick"),
    ]
}
