import ChatProtocol
@testable import ChatServerCore
import LocalStore
import SplitMix
import Testing

/// The core of one server on the local store adapter (issue 27 item 1, the path step 3 moves
/// the single server onto): a core with the store actions' path answered by ``LocalStoreAdapter``
/// until quiescent, as the glue will. Members see a message when its seq is assigned; its sender's
/// `ack` comes with the commit.
@Suite struct LocalStoreCoreTests {
    /// A core and the adapter answering its store actions; what else the core asked for, in order.
    final class Server {
        /// The core on the local store, as ``Harness`` drives it (``Harness/settle(_:)``).
        let harness: Harness
        var state: ChatServerState { harness.state }
        var rig: LocalStoreAdapterTests.Rig { harness.localStore!.rig }
        var adapter: LocalStoreAdapter { harness.localStore!.adapter }
        var actions: [ServerAction] = []
        var now: Int64 { harness.now }

        init() throws {
            // One server: no node name (its `welcome` names no node and lists no `cluster`).
            harness = try Harness()
        }

        /// Hands the core's actions to the adapter and its immediate answers back, without waiting
        /// for the disk (the worker may be held); returns the actions that are not the store's.
        func turn(_ first: [ServerAction]) -> Outbox {
            var kept: [ServerAction] = []
            var actions = first
            while !actions.isEmpty {
                var answers: [LocalStoreAnswer] = []
                for action in actions {
                    if let answered = adapter.perform(action, now: now) { answers += answered } else { kept.append(action) }
                }
                actions = answers.flatMap { state.storeAnswered($0, now: now) }
            }
            self.actions += kept
            return Outbox(kept)
        }

        /// Everything the actions lead to, the worker's rounds included (``Harness/settle(_:)``).
        @discardableResult
        func settle(_ first: [ServerAction]) -> Outbox {
            let kept = harness.settle(first)
            actions += kept
            return Outbox(kept)
        }

        func login(_ client: ClientID, nick: String) {
            settle(state.connected(client, legacy: false, datagrams: true, address: "", now: now))
            settle(state.received(.message(.join(nick: nick, peer: Harness.peer(client), room: "lobby", since: nil)),
                                  from: client, on: .chat, now: now))
            settle(state.received(.message(.status("online")), from: client, on: .presence, now: now))
        }
    }

    @Test func twoClientsChatThroughTheAdapter() throws {
        let server = try Server()
        server.login(ClientID(1), nick: "alice")
        server.login(ClientID(2), nick: "bob")
        // One server, whatever its store: no `cluster` in `welcome`.
        let welcome = Outbox(server.actions).chat(to: ClientID(1)).first { $0.type == "welcome" }
        #expect(welcome?.features == ["accounts", "moderation", "files"])
        let outbox = server.settle(server.state.received(.message(.msg(room: "lobby", text: "hello", id: "m1")), from: ClientID(1),
                                                         on: .chat, now: server.now))
        let toBob = outbox.chat(to: ClientID(2)).filter { $0.type == "msg" }
        let toAlice = outbox.chat(to: ClientID(1))
        #expect(toBob.map(\.text) == ["hello"])
        #expect(toAlice.filter { $0.type == "ack" }.map(\.id) == ["m1"])
        #expect(toAlice.first { $0.type == "ack" }?.seq == toBob.first?.seq)
        // Stored: a later reader's history has it.
        let history = try server.rig.disk.events(inRoom: "lobby", after: nil, before: nil, limit: 10, newest: true)
        #expect(history.contains { $0.kind == .msg && $0.text == "hello" && $0.id == "m1" })
        // A resend of the same id is acknowledged with the first seq, stored once.
        let resend = server.settle(server.state.received(.message(.msg(room: "lobby", text: "hello", id: "m1")), from: ClientID(1),
                                                         on: .chat, now: server.now))
        #expect(resend.chat(to: ClientID(1)).filter { $0.type == "ack" }.map(\.seq) == [toBob.first?.seq])
        #expect(resend.chat(to: ClientID(2)).filter { $0.type == "msg" }.isEmpty)
    }

    @Test func aStalledDiskDelaysTheAckNotTheMessage() throws {
        let server = try Server()
        server.login(ClientID(1), nick: "alice")
        server.login(ClientID(2), nick: "bob")
        server.rig.disk.hold()
        let sent = server.turn(server.state.received(.message(.msg(room: "lobby", text: "now", id: "m2")), from: ClientID(1),
                                                     on: .chat, now: server.now))
        #expect(sent.chat(to: ClientID(2)).filter { $0.type == "msg" }.map(\.text) == ["now"])
        #expect(sent.chat(to: ClientID(1)).filter { $0.type == "ack" }.isEmpty)
        server.rig.disk.release()
        let committed = server.settle([])
        #expect(committed.chat(to: ClientID(1)).filter { $0.type == "ack" }.map(\.id) == ["m2"])
        #expect(committed.chat(to: ClientID(2)).filter { $0.type == "msg" }.isEmpty)
    }

    /// A connection closed for bad input: each room mate hears `offline` once, from its departure,
    /// and not again when its `left` comes back from the log (that event is this server's own).
    @Test func aClosedClientsMatesHearOfflineOnce() throws {
        let server = try Server()
        server.login(ClientID(1), nick: "alice")
        server.login(ClientID(2), nick: "bob")
        let closed = server.settle(server.state.received(.fatal(.invalidUTF8), from: ClientID(1), on: .chat, now: server.now))
        #expect(closed.closes.map(\.client) == [ClientID(1)])
        #expect(closed.chat(to: ClientID(2)).filter { $0.type == "left" }.map(\.text) == ["protocol-error"])
        let statuses = (closed.presence(to: ClientID(2)) + closed.chat(to: ClientID(2))).filter { $0.type == "status" }
        #expect(statuses.map(\.text) == ["offline"])
    }

    /// One server stopping stores each member's `left` `shutdown` (clients hide such a pair with
    /// the `joined` after the restart); only a node of several hands its clients over without one.
    @Test func aStoppingServerStoresItsMembersLeft() throws {
        let server = try Server()
        server.login(ClientID(1), nick: "alice")
        server.login(ClientID(2), nick: "bob")
        let stopped = server.settle(server.state.shutdown(now: server.now))
        #expect(stopped.closes.map(\.code) == [.shutdown, .shutdown])
        #expect(server.state.pendingRoomAppends == 0)
        let history = try server.rig.disk.events(inRoom: "lobby", after: nil, before: nil, limit: 10, newest: true)
        #expect(history.filter { $0.kind == .left && $0.text == "shutdown" }.map(\.sender).sorted() == ["alice", "bob"])
    }
}
