import Foundation
import Testing

@testable import ChatProtocol

/// Nick, room, text and peer id rules of PROTOCOL.md section 4, at their exact boundaries.
struct ChatValidationTests {
    // MARK: Nicks

    /// Nicks of 1 to 24 characters made of an ASCII letter then letters, digits, `_` and `-` are valid.
    @Test(arguments: ["a", "Z", "alice", "Bob_2", "x-y", "a1_-", String(repeating: "n", count: 24), "A" + String(repeating: "9", count: 23)])
    func acceptsValidNicks(nick: String) throws {
        #expect(ChatValidation.isValidNick(nick))
        try ChatValidation.validateNick(nick)
    }

    /// Empty, too long, badly started, punctuated and non-ASCII nicks are bad-nick.
    @Test(arguments: [
        "", String(repeating: "n", count: 25), "1abc", "_a", "-a", "a b", "a.b", "alice!", "a\n", "a\u{0}",
        "é", "aé", "Ａlice", "аlice", "a\u{301}", "ß",
    ])
    func rejectsInvalidNicks(nick: String) {
        #expect(!ChatValidation.isValidNick(nick))
        #expect(throws: ChatValidationError.badNick) { try ChatValidation.validateNick(nick) }
    }

    /// Nick keys ignore ASCII case and leave everything else alone.
    @Test func foldsNickCase() {
        #expect(ChatValidation.nickKey("AlIcE_X-9") == "alice_x-9")
        #expect(ChatValidation.nickKey("alice") == ChatValidation.nickKey("ALICE"))
        #expect(ChatValidation.nickKey("É") == "É")
    }

    /// A suffix is appended to a short base unchanged.
    @Test func appendsSuffixToShortBase() {
        #expect(ChatValidation.nickCandidate(base: "alice", suffix: 2) == "alice_2")
        #expect(ChatValidation.nickCandidate(base: "alice", suffix: 10) == "alice_10")
    }

    /// A long base is shortened just enough for the result to be 24 characters.
    @Test func shortensLongBase() {
        let base = "abcdefghijklmnopqrstuvwx"  // 24
        #expect(ChatValidation.nickCandidate(base: base, suffix: 2) == "abcdefghijklmnopqrstuv_2")
        #expect(ChatValidation.nickCandidate(base: base, suffix: 10) == "abcdefghijklmnopqrstu_10")
        #expect(ChatValidation.nickCandidate(base: String(base.prefix(22)), suffix: 2) == "abcdefghijklmnopqrstuv_2")
        #expect(ChatValidation.nickCandidate(base: String(base.prefix(22)), suffix: 10) == "abcdefghijklmnopqrstu_10")
        #expect(ChatValidation.nickCandidate(base: String(base.prefix(21)), suffix: 10) == "abcdefghijklmnopqrstu_10")
    }

    /// Every candidate from a valid base of any length is a valid nick of at most 24 characters.
    @Test func candidatesAreAlwaysValid() {
        for length in 1...24 {
            let base = "N" + String(repeating: "x", count: length - 1)
            for suffix in [2, 3, 9, 10, 99, 100, 12345, Int.max] {
                let candidate = ChatValidation.nickCandidate(base: base, suffix: suffix)
                #expect(ChatValidation.isValidNick(candidate), "\(candidate)")
                #expect(candidate.hasSuffix("_\(suffix)"))
                #expect(candidate.hasPrefix(String(base.prefix(candidate.count - "_\(suffix)".count))))
            }
        }
    }

    /// The first free nick skips taken suffixes, compares case-insensitively and keeps a free nick as chosen.
    @Test func findsFirstFreeNick() {
        let taken: Set<String> = ["alice", "alice_2", "bob"]
        let isTaken = { (nick: String) in taken.contains(ChatValidation.nickKey(nick)) }
        #expect(ChatValidation.firstFreeNick(for: "Alice", isTaken: isTaken) == "Alice_3")
        #expect(ChatValidation.firstFreeNick(for: "BOB", isTaken: isTaken) == "BOB_2")
        #expect(ChatValidation.firstFreeNick(for: "Carol", isTaken: isTaken) == "Carol")
    }

    // MARK: Rooms

    /// Valid room names come back lower-cased.
    @Test(arguments: [
        ("lobby", "lobby"), ("Lobby", "lobby"), ("RUST-lang_2", "rust-lang_2"), ("a", "a"), ("0", "0"),
        ("9-_", "9-_"), (String(repeating: "R", count: 32), String(repeating: "r", count: 32)),
    ])
    func normalizesValidRooms(room: String, normalized: String) throws {
        #expect(ChatValidation.normalizeRoom(room) == normalized)
        #expect(try ChatValidation.validateRoom(room) == normalized)
    }

    /// Empty, too long, badly started, punctuated and non-ASCII room names are bad-room.
    @Test(arguments: [
        "", String(repeating: "r", count: 33), "_a", "-a", "a b", "a.b", "a/b", "#rust", "é", "caf\u{E9}",
        "\u{212A}elvin", "\u{130}stanbul", "lobby\n",
    ])
    func rejectsInvalidRooms(room: String) {
        #expect(ChatValidation.normalizeRoom(room) == nil)
        #expect(throws: ChatValidationError.badRoom) { try ChatValidation.validateRoom(room) }
    }

    // MARK: Text

    /// LF and TAB survive sanitising; every other C0 control, DEL and every C1 control is removed.
    @Test func removesExactlyTheControlCharacters() throws {
        for value in UInt32(0)...0xA0 {
            let scalar = try #require(Unicode.Scalar(value))
            let sanitized = ChatValidation.removingControlCharacters(from: "a\(scalar)b")
            let isKept = value == 0x0A || value == 0x09 || (value >= 0x20 && value < 0x7F) || value == 0xA0
            #expect(sanitized == (isKept ? "a\(scalar)b" : "ab"), "U+\(String(value, radix: 16))")
        }
    }

    /// Terminal escape sequences lose their ESC and CSI introducers.
    @Test func neutralisesTerminalEscapes() throws {
        let text = "\u{1B}[31mred\u{1B}]0;title\u{7}\u{9B}2J\r\nok"
        #expect(try ChatValidation.sanitizeText(text) == "[31mred]0;title2J\nok")
    }

    /// Text without control characters is returned unchanged.
    @Test func keepsCleanText() throws {
        let text = "hello\twörld\n日本 🎉 \u{A0}\u{2028}"
        #expect(try ChatValidation.sanitizeText(text) == text)
    }

    /// 4096 bytes are accepted and 4097 rejected, counting UTF-8 bytes, not characters.
    @Test func limitsTextToBytes() throws {
        let maximal = String(repeating: "a", count: 4_094) + "é"
        #expect(maximal.utf8.count == 4_096)
        #expect(try ChatValidation.sanitizeText(maximal) == maximal)
        #expect(throws: ChatValidationError.textTooLarge) { try ChatValidation.sanitizeText(maximal + "a") }
        #expect(throws: ChatValidationError.textTooLarge) {
            try ChatValidation.sanitizeText(String(repeating: "a", count: 4_095) + "é")
        }
        #expect(throws: ChatValidationError.textTooLarge) { try ChatValidation.sanitizeText(String(repeating: "🎉", count: 1_025)) }
        #expect(try ChatValidation.sanitizeText(String(repeating: "🎉", count: 1_024)).utf8.count == 4_096)
    }

    /// The size is checked after removal: control characters do not count against the limit.
    @Test func checksSizeAfterRemoval() throws {
        let text = String(repeating: "a", count: 4_096) + String(repeating: "\u{1B}", count: 100)
        #expect(try ChatValidation.sanitizeText(text) == String(repeating: "a", count: 4_096))
    }

    /// Text that is empty, or becomes empty, is bad-field.
    @Test(arguments: ["", "\u{0}", "\r", "\u{1B}\u{7F}\u{85}"])
    func rejectsEmptyText(text: String) {
        #expect(throws: ChatValidationError.textEmpty) { try ChatValidation.sanitizeText(text) }
    }

    /// Validation errors map to the protocol's error codes.
    @Test func mapsValidationErrorsToCodes() {
        #expect(ChatValidationError.badNick.errorCode == .badNick)
        #expect(ChatValidationError.badRoom.errorCode == .badRoom)
        #expect(ChatValidationError.textTooLarge.errorCode == .tooLarge)
        #expect(ChatValidationError.textEmpty.errorCode == .badField)
        #expect(!ChatValidationError.badNick.reason.isEmpty)
    }

    // MARK: Peer ids

    /// UUID strings in either case are valid peer ids.
    @Test func acceptsUUIDs() {
        #expect(ChatValidation.isValidPeerID(UUID().uuidString))
        #expect(ChatValidation.isValidPeerID(UUID().uuidString.lowercased()))
        #expect(ChatValidation.isValidPeerID("00000000-0000-0000-0000-000000000000"))
    }

    /// Anything that is not exactly 8-4-4-4-12 hex digits is refused.
    @Test(arguments: [
        "", "6F1C", "6F1C2B3A-0000-4000-8000-00000000000", "6F1C2B3A-0000-4000-8000-0000000000011",
        "6F1C2B3A00000-4000-8000-000000000001", "6F1C2B3A-0000-4000-8000-00000000000G", "{6F1C2B3A-0000-4000-8000-000000000001}",
        "6F1C2B3A-0000-4000-8000_000000000001", "6F1C2B3A-0000-4000-8000-00000000000é",
    ])
    func rejectsMalformedPeerIDs(peer: String) {
        #expect(!ChatValidation.isValidPeerID(peer))
    }

    // MARK: Message ids

    /// UUIDs, ULIDs and ids made of letters, digits and `-_.:` of 1 to 64 bytes are valid.
    @Test(arguments: [
        "a", "0", UUID().uuidString, UUID().uuidString.lowercased(), "01ARZ3NDEKTSV4RRFFQ69G5FAV", "host-1:42", "a.b_c-d:e",
        String(repeating: "x", count: 64),
    ])
    func acceptsMessageIDs(id: String) {
        #expect(ChatValidation.isValidMessageID(id))
    }

    /// Empty, over 64 bytes, spaces, controls, escapes, bidi overrides and non-ASCII are refused.
    @Test(arguments: [
        "", String(repeating: "x", count: 65), "a b", "a\u{1B}[2J", "a\u{0}", "a\n", "\u{202E}abc", "é", "a/b", "a\"b", "{}",
    ])
    func rejectsBadMessageIDs(id: String) {
        #expect(!ChatValidation.isValidMessageID(id))
    }

    // MARK: Excerpts

    /// An excerpt keeps printable ASCII, turns everything else into `?` and cuts at 32 characters with `…`.
    @Test func excerptIsShortAndInert() {
        #expect(ChatValidation.excerpt("bob") == "bob")
        #expect(ChatValidation.excerpt("a\u{1B}]0;pwned\u{7}\u{202E}é") == "a?]0;pwned???")
        let long = String(repeating: "x", count: 60_000)
        #expect(ChatValidation.excerpt(long) == String(repeating: "x", count: 32) + "…")
        #expect(ChatValidation.excerpt(String(repeating: "x", count: 32)) == String(repeating: "x", count: 32))
    }
}
