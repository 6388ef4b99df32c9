@testable import ChatClientKit
import ChatProtocol
import Testing

/// Version 1.2's commands about a message (issue 28, chat-client item 1): how the table reads
/// them, and the rules ``MessageReferences`` checks before anything is sent.
struct MessageReferencesTests {
    static let all: Set<String> = [ServerFeature.edits, ServerFeature.reactions, ServerFeature.search, ServerFeature.alwaysOn]
    /// bob's 3, our 5, bob's 7 (removed), our 9, bob's 11.
    static let shown = [ShownMessage(seq: 3, isOwn: false), ShownMessage(seq: 5, isOwn: true), ShownMessage(seq: 7, isOwn: false, isRedacted: true),
                        ShownMessage(seq: 9, isOwn: true), ShownMessage(seq: 11, isOwn: false)]

    static func result(_ request: MessageRequest, in target: MessageTarget = .room("dev"), features: Set<String> = all) -> Result<ChatMessage, CommandError> {
        MessageReferences.message(for: request, in: target, shown: shown, features: features, id: "id-1")
    }

    static func sent(_ request: MessageRequest, in target: MessageTarget = .room("dev")) -> ChatMessage? {
        guard case .success(let message) = result(request, in: target) else { return nil }
        return message
    }

    static func refusal(_ request: MessageRequest, in target: MessageTarget = .room("dev"), features: Set<String> = all) -> String? {
        guard case .failure(.message(let text)) = result(request, in: target, features: features) else { return nil }
        return text
    }

    /// A first word of digits is N when a text follows; a reaction alone goes to the newest message.
    @Test func theTableReadsNumbers() {
        let context = RecordingScreenContext()
        #expect(context.run("/edit fixed  it") == ["edit - fixed  it"])
        #expect(context.run("/edit 42 fixed it") == ["edit 42 fixed it"])
        #expect(context.run("/edit 42") == ["edit - 42"])
        #expect(context.run("/edit") == ["complain usage: /edit [N] TEXT"])
        #expect(context.run("/redact") == ["redact - "])
        #expect(context.run("/redact 12") == ["redact 12 "])
        #expect(context.run("/redact 12 posted in  the wrong room") == ["redact 12 posted in  the wrong room"])
        #expect(context.run("/redact wrong room") == ["redact - wrong room"])
        #expect(context.run("/react 👍") == ["react - 👍"])
        #expect(context.run("/react 12 +1") == ["react 12 +1"])
        #expect(context.run("/react +1 12") == ["complain usage: /react [N] EMOJI"])
        #expect(context.run("/react 12 a b") == ["complain usage: /react [N] EMOJI"])
        #expect(context.run("/unreact 12 🎉") == ["unreact 12 🎉"])
        #expect(context.run("/reply 12 yes, that one") == ["reply 12 yes, that one"])
        #expect(context.run("/reply bob yes") == ["complain usage: /reply N TEXT"])
        #expect(context.run("/reply 0 yes") == ["complain usage: /reply N TEXT"])
        #expect(context.run("/numbers") == ["numbers"])
        #expect(RecordingContext().run("/numbers") == ["complain /numbers works in the full-screen client only"])
        #expect(RecordingContext().run("/edit 9 again") == ["edit 9 again"])
    }

    /// The requests as section 15 writes them: `room` or `with`, `ref`, an id.
    @Test func theRequests() {
        let edit = Self.sent(.edit(nil, text: "fixed"))
        #expect(edit == ChatMessage(type: "edit", text: "fixed", room: "dev", id: "id-1", ref: 9))
        #expect(Self.sent(.edit(5, text: "older")) == ChatMessage(type: "edit", text: "older", room: "dev", id: "id-1", ref: 5))
        #expect(Self.sent(.redact(nil, reason: "")) == ChatMessage(type: "redact", room: "dev", id: "id-1", ref: 9))
        #expect(Self.sent(.redact(3, reason: "spam")) == ChatMessage(type: "redact", text: "spam", room: "dev", id: "id-1", ref: 3))
        #expect(Self.sent(.react(nil, "👍", added: true)) == ChatMessage(type: "react", text: "👍", room: "dev", id: "id-1", ref: 11))
        #expect(Self.sent(.react(3, "+1", added: false)) == ChatMessage(type: "unreact", text: "+1", room: "dev", id: "id-1", ref: 3))
        #expect(Self.sent(.reply(3, text: "yes")) == ChatMessage(type: "msg", text: "yes", room: "dev", id: "id-1", ref: 3))
        #expect(Self.sent(.edit(nil, text: "x"), in: .conversation("bob")) == ChatMessage(type: "edit", text: "x", id: "id-1", with: "bob", ref: 9))
        #expect(Self.sent(.reply(11, text: "ok"), in: .conversation("bob")) == ChatMessage(type: "dm", text: "ok", id: "id-1", to: "bob", ref: 11))
    }

    /// What is refused, with a sentence saying why; nothing is sent.
    @Test func refusals() {
        #expect(Self.refusal(.edit(3, text: "mine now")) == "message 3 is not yours: only its author can edit it")
        #expect(Self.refusal(.edit(4, text: "x")) == "there is no message 4 here (/numbers shows each message's number)")
        #expect(Self.refusal(.edit(7, text: "x")) == "message 7 was removed")
        #expect(Self.refusal(.edit(nil, text: "")) == "the text is empty")
        #expect(Self.refusal(.edit(nil, text: String(repeating: "a", count: 4_097))) == "the text is over 4096 bytes")
        #expect(Self.refusal(.react(3, "a b", added: true)) == "a reaction is 1 to 32 bytes without spaces: an emoji, +1")
        #expect(Self.refusal(.react(3, String(repeating: "x", count: 33), added: true))?.hasPrefix("a reaction is") == true)
        #expect(Self.refusal(.react(3, "\u{00A0}", added: true))?.hasPrefix("a reaction is") == true)
        #expect(Self.refusal(.react(7, "+1", added: true)) == "message 7 was removed")
        #expect(Self.refusal(.reply(99, text: "hm")) == "there is no message 99 here (/numbers shows each message's number)")
        #expect(Self.refusal(.redact(3, reason: ""), in: .conversation("bob"))
            == "message 3 is not yours: in a private conversation only its author can remove it")
        // Nothing of ours, nothing at all.
        let others = [ShownMessage(seq: 1, isOwn: false)]
        #expect(MessageReferences.message(for: .edit(nil, text: "x"), in: .room("dev"), shown: others, features: Self.all, id: "i")
            == .failure(.message("you have no message here to edit")))
        #expect(MessageReferences.message(for: .react(nil, "+1", added: true), in: .room("dev"), shown: [], features: Self.all, id: "i")
            == .failure(.message("there is no message here to react to")))
    }

    /// `/edit` or `/redact` right after sending, before the message's `ack` gives it its number:
    /// not the message before it, silently, but a sentence saying to wait.
    @Test func theNewestOwnMessageNotYetAcknowledged() {
        let waiting = "your newest message here is not acknowledged yet: try again once it is"
        for request in [MessageRequest.edit(nil, text: "x"), .redact(nil, reason: "")] {
            #expect(MessageReferences.message(for: request, in: .room("dev"), shown: Self.shown, features: Self.all, id: "i", ownPending: true)
                == .failure(.message(waiting)))
        }
        // Named by number, or not about our own newest: as ever.
        #expect(MessageReferences.message(for: .edit(5, text: "x"), in: .room("dev"), shown: Self.shown, features: Self.all, id: "i", ownPending: true)
            == .success(ChatMessage(type: "edit", text: "x", room: "dev", id: "i", ref: 5)))
        #expect(MessageReferences.message(for: .react(nil, "+1", added: true), in: .room("dev"), shown: Self.shown, features: Self.all, id: "i",
                                          ownPending: true) == .success(ChatMessage(type: "react", text: "+1", room: "dev", id: "i", ref: 11)))
    }

    /// A server that does not offer the feature (a 1.1 server, today's) is not asked.
    @Test func aServerWithoutTheFeature() {
        let old: Set<String> = ["accounts", "moderation", "files"]
        #expect(Self.refusal(.edit(nil, text: "x"), features: old) == "this server does not support edits (a version 1.2 feature); nothing was sent")
        #expect(Self.refusal(.redact(nil, reason: ""), features: old) == "this server does not support redactions (a version 1.2 feature); nothing was sent")
        #expect(Self.refusal(.reply(3, text: "x"), features: old) == "this server does not support replies (a version 1.2 feature); nothing was sent")
        #expect(Self.refusal(.react(3, "+1", added: true), features: [ServerFeature.edits])
            == "this server does not support reactions (a version 1.2 feature); nothing was sent")
    }

    /// `/search WORDS` asks a server that searches; otherwise the full-screen client searches
    /// the lines shown and line mode says the server does not search.
    @Test func searchGoesToTheServerWhenItSearches() {
        let screen = RecordingScreenContext()
        #expect(screen.run("/search deploy now") == ["search deploy now"])
        screen.searchesOnServer = true
        #expect(screen.run("/search deploy now") == ["server search deploy now"])
        #expect(screen.run("/search") == ["search -"])
        let line = RecordingContext()
        #expect(line.run("/search deploy") == ["complain this server does not search (a version 1.2 feature); /lastlog WORD finds it in what was printed"])
        #expect(line.run("/search") == ["complain usage: /search WORDS"])
        line.searchesOnServer = true
        #expect(line.run("/search deploy") == ["server search deploy"])
    }

    /// Line mode's memory of the messages it printed: by room or conversation, bounded.
    @Test func seenMessages() {
        var seen = SeenMessages()
        let bob = ChatMessage(type: "dm", text: "hi", sender: "Bob", seq: 4, to: "alice")
        seen.record(ShownMessage(seq: 4, isOwn: false), in: SeenMessages.target(of: bob, ownNick: "alice"))
        let mine = ChatMessage(type: "dm", text: "yo", sender: "alice", seq: 5, to: "bob")
        #expect(SeenMessages.target(of: mine, ownNick: "alice") == .conversation("bob"))
        seen.record(ShownMessage(seq: 5, isOwn: true), in: .conversation("bob"))
        seen.record(ShownMessage(seq: 4, isOwn: false), in: .room("dev"))
        #expect(seen.shown(in: .conversation("BOB")).map(\.seq) == [4, 5])
        #expect(SeenMessages.target(of: ChatMessage(type: "msg", text: "x"), ownNick: "alice") == .room("lobby"))
        seen.redacted(4, in: .room("dev"))
        #expect(seen.shown(in: .room("dev")).map(\.isRedacted) == [true])
        #expect(seen.shown(in: .conversation("bob")).map(\.isRedacted) == [false, false])
        for seq in 0..<Int64(SeenMessages.limit) { seen.record(ShownMessage(seq: 100 + seq, isOwn: false), in: .room("dev")) }
        #expect(seen.shown(in: .conversation("bob")).isEmpty)
        #expect(seen.shown(in: .room("dev")).count == SeenMessages.limit)
    }
}
