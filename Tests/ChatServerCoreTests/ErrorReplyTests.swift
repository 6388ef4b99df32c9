import ChatProtocol
import ChatServerCore
import Testing

@Suite struct ErrorReplyTests {
    /// A malformed message costs exactly one error with the decoder's code and the request id, and nothing else.
    @Test func malformedMessageCostsOneError() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let badField = harness.raw(#"{"type":"msg","room":5,"text":"x","id":"M1"}"# + "\n", from: 1)
        #expect(badField.errorCodes(to: 1) == ["bad-field"])
        #expect(badField.chat(to: 1).first?.id == "M1")
        #expect(badField.chat(to: 1).first?.text.isEmpty == false)
        #expect(badField.effects.count == 1)
        let badJSON = harness.raw(#"{"type":"msg",}"# + "\n", from: 1)
        #expect(badJSON.errorCodes(to: 1) == ["bad-json"])
        #expect(badJSON.effects.count == 1)
        let noType = harness.raw(#"{"text":"x"}"#, from: 1)
        #expect(noType.errorCodes(to: 1) == ["bad-field"])
        #expect(harness.say("still fine", from: 1).chat(to: 2).map(\.text) == ["still fine"])
    }

    /// An unknown type is unknown-type carrying the id; the connection stays open.
    @Test func unknownTypeIsUnknownType() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let out = harness.send(ChatMessage(type: "files", id: "U1"), from: 1)
        #expect(out.errorCodes(to: 1) == ["unknown-type"])
        #expect(out.chat(to: 1).first?.id == "U1")
        #expect(out.closes.isEmpty)
    }

    /// Types only the server sends, and the first lines of file streams (`upload`, `download`), are
    /// unknown-type when a client sends them on either stream.
    @Test func serverOnlyTypesAreUnknownType() throws {
        let harness = try Harness.floodFree()
        harness.login(1, nick: "alice")
        for type in ["welcome", "ack", "joined", "left", "history-end", "error", "roster", "file", "upload", "download"] {
            for stream in [ChatStreamKind.chat, .presence] {
                let out = harness.send(ChatMessage(type: type, room: "lobby"), from: 1, on: stream)
                #expect(out.errorCodes(to: 1) == ["unknown-type"], "\(type) on \(stream)")
                #expect(!out.recipients.contains { $0 != 1 })
            }
        }
    }

    /// Across the protocol's scenarios the server produces every error code it knows (PROTOCOL.md
    /// section 5 and those of sections 7, 8, 9 and 12; those of files on file streams).
    @Test func everyErrorCodeIsProduced() throws {
        var configuration = ChatServerConfiguration()
        configuration.maxRoomsPerClient = 1
        let harness = try Harness(configuration: configuration)
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        var out = Outbox([])
        out = out + harness.event(.malformed(.badJSON, id: nil), from: 1)
        out = out + harness.event(.malformed(.badField("room"), id: "x"), from: 1)
        out = out + harness.send(ChatMessage(type: "nope"), from: 1)
        out = out + harness.say(String(repeating: "x", count: 5_000), from: 1)
        out = out + harness.say("hi", from: 1, in: "dev")
        out = out + harness.send(.nick("1bad"), from: 1)
        out = out + harness.send(.nick("bob"), from: 1)
        out = out + harness.say("hi", from: 1, in: "a b")
        out = out + harness.send(.dm(to: "nobody", text: "hi", id: "d"), from: 1)
        out = out + harness.send(.join(room: "dev"), from: 1)
        for _ in 0..<12 { out = out + harness.say("flood", from: 1) }
        out = out + accountAndModerationErrors()
        // Version 1.2's codes come with the server's 1.2 (issue 28); the wire layer knows them already.
        let notServedYet: Set = ["no-such-message", "not-author", "too-many-devices"]
        #expect(Set(out.errorCodes(to: 1) + fileStreamErrors().fileErrorCodes) == Set(ErrorCode.allCases.map(\.rawValue)).subtracting(notServedYet))
    }

    /// The codes only file streams produce (section 9), each caused once.
    private func fileStreamErrors() -> Outbox {
        guard let harness = try? Harness() else { return Outbox([]) }
        harness.login(1, nick: "alice")
        var out = harness.header(.download(file: "none"), on: Harness.fileStream(1, 0))
        out = out + harness.upload("late", offset: 3, on: Harness.fileStream(1, 1))
        for (index, outcome) in [UploadOutcome.badChecksum, .incomplete(received: 1)].enumerated() {
            let key = Harness.fileStream(1, Int64(2 + index))
            harness.upload("f\(index)", on: key)
            out = out + harness.uploadEnded(key, outcome)
        }
        return out
    }

    /// The codes of sections 7 and 8, each caused once, all to client 1 (or redirected to it).
    private func accountAndModerationErrors() -> Outbox {
        let store = InMemoryAccountStore()
        var configuration = ChatServerConfiguration()
        configuration.maxCertificatesPerAccount = 1
        configuration.lobbyClaimable = true
        guard let harness = try? Harness(configuration: configuration, accounts: store) else { return Outbox([]) }
        harness.hello(1, nick: "alice", certificate: Harness.fingerprint(1))
        var out = harness.register(1, password: "short")
        out = out + harness.send(.changePassword("long-enough"), from: 1)
        harness.registered(2, nick: "bob")
        harness.send(.nick("bobby"), from: 2)
        out = out + harness.send(.nick("bob"), from: 1)
        out = out + harness.finishPasswordWork(harness.send(.login(account: "bob", password: "wrong-password"), from: 1))
        out = out + harness.send(.kick(room: "lobby", nick: "bob"), from: 1)
        harness.register(1)
        out = out + harness.register(1)
        harness.send(.claim(room: "lobby"), from: 2)
        out = out + harness.send(.claim(room: "lobby"), from: 1)
        harness.send(.join(room: "club"), from: 2)
        harness.send(.claim(room: "club"), from: 2)
        harness.send(.mode(room: "club", "+invite"), from: 2)
        out = out + harness.send(.join(room: "club"), from: 1)
        harness.send(.mode(room: "club", "-invite"), from: 2)
        harness.send(.mode(room: "club", "+registered"), from: 2)
        harness.send(.ban(room: "club", target: "alice"), from: 2)
        out = out + harness.send(.join(room: "club"), from: 1)
        harness.hello(3, nick: "carol")
        out = out + harness.send(.join(room: "club"), from: 3).redirect(from: 3, to: 1)
        harness.hello(4, nick: "alice", password: "password1", certificate: Harness.fingerprint(2))
        out = out + harness.send(.certificate(add: true), from: 4).redirect(from: 4, to: 1)
        store.failure = "unreadable"
        out = out + harness.send(.join(room: "elsewhere"), from: 1)
        store.failure = nil
        return out
    }
}

private extension Outbox {
    /// What went to `source`, as if it had gone to `target`.
    func redirect(from source: ClientID, to target: ClientID) -> Outbox {
        Outbox(actions.compactMap { action in
            if case .send(let client, let stream, let payload, let live) = action, client == source {
                return .send(target, stream, payload, live: live)
            }
            return nil
        })
    }
}
