import ChatProtocol
@testable import ChatServerCore
import Testing

/// Room moderation across nodes with a shared store (issue 23): a `claim` decided in the store,
/// and a ban of a guest connected through another node.
@Suite struct SharedModerationTests {
    /// Two nodes, `alice` (client 1) on the first and `bob` (client 2) on the second, both
    /// registered and in lobby.
    private func twoAccounts() throws -> SharedLogWorld {
        let world = SharedLogWorld()
        try world.node("a")
        try world.node("b")
        for (client, nick, node) in [(ClientID(1), "alice", "a"), (ClientID(2), "bob", "b")] {
            world.login(client, nick: nick, on: node)
            world.send(.register(password: "password of \(nick)"), from: client, on: node)
            world.settle()
        }
        return world
    }

    /// Two claims of one room through two nodes before either node heard of the other: both
    /// nodes' caches say the room has no owner, so both ask the store. The first claim stored
    /// owns the room; the second stores nothing and its asker gets `room-owned` with its id.
    /// Every node then knows one owner, and a third claim is refused at once.
    @Test func simultaneousClaimsHaveOneOwner() throws {
        let world = try twoAccounts()
        var claim = ChatMessage.claim(room: "lobby")
        claim.id = "c-alice"
        world.send(claim, from: 1, on: "a")
        claim.id = "c-bob"
        world.send(claim, from: 2, on: "b")
        world.settle()
        #expect(world.settings["lobby"]?.owner == "alice")
        #expect(world.log["lobby"]?.filter { $0.kind == .op }.count == 1, "one `op` stored")
        let bob = world.nodes["b"]!.chat(to: 2)
        #expect(bob.contains { $0.type == "error" && $0.code == "room-owned" && $0.id == "c-bob" })
        #expect(bob.last { $0.type == "op" }.map { [$0.to, $0.text] } == ["alice", "owner"], "bob sees alice's claim")
        #expect(world.nodes["a"]!.chat(to: 1).last { $0.type == "op" }?.to == "alice")
        for name in ["a", "b"] {
            #expect(world.nodes[name]!.state.roomSettings["lobby"]?.owner == "alice", "node \(name)")
        }
        claim.id = "c-again"
        let again = world.send(claim, from: 2, on: "b")
        #expect(again.chat(to: 2).map { [$0.code, $0.id] } == [["room-owned", "c-again"]], "known now: refused at once")
    }

    /// The refusal reaches the loser's node before the winner's event: its cache (which had
    /// taken its own claim for granted) holds the real owner at once.
    @Test func refusedClaimCorrectsTheCacheAtOnce() throws {
        let world = try twoAccounts()
        world.send(.claim(room: "lobby"), from: 1, on: "a")
        world.send(.claim(room: "lobby"), from: 2, on: "b")
        world.settle { step in if case .deliver = step { false } else { true } }
        #expect(world.nodes["b"]!.state.roomSettings["lobby"]?.owner == "alice")
        #expect(world.nodes["b"]!.chat(to: 2).last?.code == "room-owned")
        world.settle()
    }
}
