import ChatProtocol

/// An `error` of accounts and moderation (PROTOCOL.md sections 7 and 8) in words a person reads,
/// the server's own text after it: what went wrong and, where there is one, what to do about it.
/// The version 1 codes keep the server's text alone, as before.
public enum ErrorExplanation {
    public static func text(code: String?, serverText: String) -> String {
        guard let code, let sentence = sentences[code] else { return serverText.isEmpty ? (code ?? "error") : serverText }
        return serverText.isEmpty ? sentence : "\(sentence) (\(serverText))"
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

    static let sentences: [String: String] = [
        ErrorCode.accountExists.rawValue: "That account exists already, or you are logged in",
        ErrorCode.weakPassword.rawValue: "The password must be 8 to 256 bytes",
        ErrorCode.badLogin.rawValue: "Wrong account name or password (after 5 wrong ones, wait a minute)",
        ErrorCode.nickRegistered.rawValue: "That nick is someone's account: /login to it if it is yours",
        ErrorCode.notLoggedIn.rawValue: "You are not logged in: /register or /login first",
        ErrorCode.accountRequired.rawValue: "Only logged-in users may do that here: /register or /login",
        ErrorCode.roomOwned.rawValue: "The room has an owner already",
        ErrorCode.notOperator.rawValue: "You are not allowed to do that here",
        ErrorCode.banned.rawValue: "You are banned",
        ErrorCode.notInvited.rawValue: "The room is invite-only: ask an operator for an /invite",
        ErrorCode.quotaExceeded.rawValue: "That list is full",
        ErrorCode.unavailable.rawValue: "The server cannot do that right now; try again",
    ]
}
