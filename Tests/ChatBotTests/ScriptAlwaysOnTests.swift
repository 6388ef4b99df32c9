@testable import ChatBot
import ChatProtocol
import Testing

/// The version 1.2 commands of bot scripts (PROTOCOL.md sections 14 and 15): what they parse to,
/// the requests they make, and the mistakes they refuse.
@Suite("chat-bot script: edits, reactions, replies, read markers, search")
struct ScriptAlwaysOnTests {
    @Test func parsesEachCommand() throws {
        let script = try ScriptParser.parse("""
            bot alice {
              say typo
              edit mine fixed text
              redact last
              redact 12 spam, sorry
              react last 👍🏽
              unreact 7 +1
              reply last sure, friday
              read
              read 40
              search deploy Friday
              expect edit from bob "fixed"
              expect found /deploy/ within 2s
              expect read "lobby 40"
              quit
            }
            """)
        let actions = try #require(script.bots.first).commands.map(\.action)
        #expect(Array(actions[1...9]) == [
            .refer(ScriptReference(verb: .edit, target: .mine, text: "fixed text")),
            .refer(ScriptReference(verb: .redact, target: .last, text: "")),
            .refer(ScriptReference(verb: .redact, target: .seq(12), text: "spam, sorry")),
            .refer(ScriptReference(verb: .react, target: .last, text: "👍🏽")),
            .refer(ScriptReference(verb: .unreact, target: .seq(7), text: "+1")),
            .refer(ScriptReference(verb: .reply, target: .last, text: "sure, friday")),
            .refer(ScriptReference(verb: .read, target: .last)),
            .refer(ScriptReference(verb: .read, target: .seq(40))),
            .search("deploy Friday"),
        ])
        #expect(actions[10] == .expect(ScriptExpectation(kind: .edit, from: "bob", pattern: .substring("fixed"))))
        #expect(actions[11] == .expect(ScriptExpectation(kind: .found, pattern: .regex("deploy"), timeoutMilliseconds: 2000)))
    }

    /// The requests, as section 15 spells them: `ref` the seq, an id on all but `read`.
    @Test func requestsNameTheMessageBySeq() {
        let edit = ScriptReference(verb: .edit, target: .mine, text: "fixed").message(room: "dev", seq: 41, id: "e")
        #expect(edit == ChatMessage(type: "edit", text: "fixed", room: "dev", id: "e", ref: 41))
        let reply = ScriptReference(verb: .reply, target: .last, text: "yes").message(room: "dev", seq: 40, id: "m")
        #expect(reply == ChatMessage(type: "msg", text: "yes", room: "dev", id: "m", ref: 40))
        let read = ScriptReference(verb: .read, target: .last).message(room: "dev", seq: 44, id: "unused")
        #expect(read == ChatMessage(type: "read", room: "dev", read: 44))
        #expect(!ScriptReference(verb: .read, target: .last).isAcknowledged)
        #expect(ScriptReference(verb: .react, target: .last, text: "👍").isAcknowledged)
    }

    /// What an expectation's pattern sees of the new events.
    @Test func expectationsSeeTheNewEvents() {
        let found = ChatMessage(type: "found", text: "deploy", room: "dev", events: [
            ChatMessage(type: "msg", text: "deploy friday", sender: "bob", seq: 3),
            ChatMessage(type: "msg", text: "no deploy today", sender: "carol", seq: 2),
        ])
        #expect(ScriptExpectation(kind: .found, pattern: .substring("no deploy")).matches(found, senderNick: nil))
        let read = ChatMessage(type: "read", room: "dev", read: 12)
        #expect(ScriptExpectation(kind: .read, pattern: .substring("dev 12")).matches(read, senderNick: nil))
        let react = ChatMessage(type: "react", text: "👍", sender: "bob", room: "dev", seq: 9, ref: 4)
        #expect(ScriptExpectation(kind: .react, from: "bob", pattern: .substring("👍")).matches(react, senderNick: "bob"))
        #expect(!ScriptExpectation(kind: .unreact).matches(react, senderNick: nil))
    }

    @Test(arguments: [
        ("edit\n", "expected 'edit TARGET TEXT'"),
        ("edit mine\n", "the text is missing"),
        ("edit first fixed\n", "TARGET: last, mine or a seq"),
        ("redact 0\n", "TARGET: last, mine or a seq"),
        ("react last thumbs up\n", "a reaction is 1 to 32 bytes"),
        ("react last\n", "a reaction is 1 to 32 bytes"),
        ("read last 4\n", "expected 'read [TARGET]'"),
        ("search ?!\n", "expected 'search WORDS'"),
        ("search a b c d e f g h i\n", "expected 'search WORDS'"),
    ])
    func refusesMistakes(line: String, says: String) {
        do {
            _ = try ScriptParser.parse("bot alice {\n  " + line + "}")
            Issue.record("'\(line)' parsed")
        } catch {
            #expect(error.line == 2, "\(error)")
            #expect(error.message.contains(says), "\(error)")
        }
    }
}
