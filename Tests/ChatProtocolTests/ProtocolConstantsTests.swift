import Testing

@testable import ChatProtocol

/// The strings and numbers that appear on the wire must match PROTOCOL.md exactly.
struct ProtocolConstantsTests {
    /// The ten error codes of section 5, then those of the version 1.1 additions the server
    /// uses so far (section 12; accounts and moderation, sections 7 and 8; files, section 9), spelled as on the wire.
    @Test func errorCodesMatchProtocol() {
        #expect(ErrorCode.allCases.map(\.rawValue) == [
            "bad-json", "bad-field", "unknown-type", "too-large", "not-joined", "bad-nick", "nick-in-use", "bad-room",
            "no-such-user", "rate-limited", "too-many-rooms",
            "account-exists", "weak-password", "bad-login", "nick-registered", "not-logged-in", "account-required",
            "room-owned", "not-operator", "banned", "not-invited", "quota-exceeded", "unavailable",
            "bad-checksum", "incomplete", "bad-offset", "no-such-file",
            "no-such-message", "not-author", "too-many-devices",
        ])
    }

    /// The close codes 0x0 to 0x6 with their names from section 5, and 0x7 BANNED of section 12.
    @Test func closeCodesMatchProtocol() {
        let expected: [(UInt64, String)] = [
            (0x0, "NO_ERROR"), (0x1, "PROTOCOL_ERROR"), (0x2, "REPLACED"), (0x3, "KICKED"), (0x4, "SHUTDOWN"),
            (0x5, "SLOW_CONSUMER"), (0x6, "FLOODING"), (0x7, "BANNED"),
        ]
        #expect(CloseCode.allCases.map(\.rawValue) == expected.map(\.0))
        #expect(CloseCode.allCases.map(\.name) == expected.map(\.1))
    }

    /// Every message type of section 3 and of sections 7 to 9, spelled as on the wire, and ours.
    @Test func messageTypesMatchProtocol() {
        #expect(Set(MessageType.allCases.map(\.rawValue)) == [
            "join", "msg", "dm", "nick", "part", "history", "welcome", "ack", "joined", "left", "history-end", "error",
            "roster", "status", "typing", "presence",
            "register", "login", "password", "certificate", "account",
            "claim", "topic", "kick", "kicked", "ban", "banned", "unban", "unbanned", "op", "deop", "mode", "invite", "rooms", "whois",
            "upload", "download", "file",
            // Version 1.2 (sections 13 to 17).
            "read", "edit", "redact", "react", "unreact", "search", "found", "away",
            // Ours (docs/PROTOCOL.md section 3, item 22).
            "quit",
        ])
        #expect(ChatMessage(type: "history-end").messageType == .historyEnd)
        #expect(ChatMessage(type: "files").messageType == nil)
    }

    /// The limits of sections 1 and 4.
    @Test func limitsMatchProtocol() {
        #expect(ChatLimits.maxStreamMessageBytes == 65_536)
        #expect(ChatLimits.maxObjectBytes == 65_535)
        #expect(ChatLimits.maxDatagramFrameBytes == 1_200)
        #expect(ChatLimits.maxNickLength == 24)
        #expect(ChatLimits.maxRoomLength == 32)
        #expect(ChatLimits.maxTextBytes == 4_096)
        #expect(ChatLimits.defaultRoom == "lobby")
        #expect(ChatLimits.passwordBytes == 8...256)
        #expect(ChatLimits.maxTopicBytes == 512)
        #expect(ChatLimits.maxRoomsListed == 1_000)
    }

    /// The limits of section 16 and the numbers of section 17.
    @Test func versionOneTwoLimitsMatchProtocol() {
        #expect(ChatLimits.defaultMaxDevicesPerAccount == 16)
        #expect(ChatLimits.defaultMaxRoomsPerAccount == 100)
        #expect(ChatLimits.minConversationHistory == 1_000)
        #expect(ChatLimits.maxReactionBytes == 32)
        #expect(ChatLimits.maxDistinctReactions == 20)
        #expect(ChatLimits.maxSearchTextBytes == 256)
        #expect(ChatLimits.maxSearchWords == 8)
        #expect(ChatLimits.maxSearchResults == 50)
        #expect(ChatLimits.maxAwayReasonBytes == 256)
    }

    /// The constructors fill the fields the protocol tables require for each message.
    @Test func constructorsFillRequiredFields() {
        #expect(ChatMessage.join(nick: "alice", peer: "P", room: "lobby", since: 7)
            == ChatMessage(type: "join", sender: "alice", room: "lobby", peer: "P", since: 7))
        #expect(ChatMessage.msg(room: "r", text: "t", id: "i") == ChatMessage(type: "msg", text: "t", room: "r", id: "i"))
        #expect(ChatMessage.dm(to: "bob", text: "t", id: "i") == ChatMessage(type: "dm", text: "t", id: "i", to: "bob"))
        #expect(ChatMessage.nick("neo") == ChatMessage(type: "nick", text: "neo"))
        #expect(ChatMessage.part(room: "r") == ChatMessage(type: "part", room: "r"))
        #expect(ChatMessage.history(room: "r", before: 5, limit: 9) == ChatMessage(type: "history", room: "r", before: 5, limit: 9))
        #expect(ChatMessage.status("away") == ChatMessage(type: "status", text: "away"))
        #expect(ChatMessage.typing(room: "r", isTyping: true) == ChatMessage(type: "typing", text: "start", room: "r"))
        #expect(ChatMessage.typing(room: "r", isTyping: false).text == "stop")
        #expect(ChatMessage.welcome(nick: "a", peer: "P", serverName: "qchat")
            == ChatMessage(type: "welcome", text: "qchat", sender: "a", peer: "P"))
        #expect(ChatMessage.relayedMsg(room: "r", sender: "a", text: "t", id: "i", seq: 1, ts: 2)
            == ChatMessage(type: "msg", text: "t", sender: "a", room: "r", id: "i", seq: 1, ts: 2))
        #expect(ChatMessage.ack(id: "i", room: "r", seq: 1, ts: 2) == ChatMessage(type: "ack", room: "r", id: "i", seq: 1, ts: 2))
        #expect(ChatMessage.error(code: .nickInUse, text: "taken", id: "i")
            == ChatMessage(type: "error", text: "taken", id: "i", code: "nick-in-use"))
        #expect(ChatMessage.roster(room: "r", members: ["a"]) == ChatMessage(type: "roster", room: "r", members: ["a"]))
        #expect(ChatMessage.historyEnd(room: "r") == ChatMessage(type: "history-end", room: "r"))
    }

    /// The section 6 examples decode into the messages they describe.
    @Test func decodesProtocolExamples() throws {
        let ack = try decode(#"{"type":"ack","id":"9A0E...","room":"lobby","seq":42,"ts":1764480001234,"text":"","sender":""}"#)
        #expect(ack == .ack(id: "9A0E...", room: "lobby", seq: 42, ts: 1_764_480_001_234))
        let roster = try decode(#"{"type":"roster","room":"lobby","members":["alice","bob"],"text":"","sender":""}"#)
        #expect(roster == .roster(room: "lobby", members: ["alice", "bob"]))
        let typing = try decode(#"{"type":"typing","room":"lobby","text":"start"}"#)
        #expect(typing == .typing(room: "lobby", isTyping: true))
    }
}
