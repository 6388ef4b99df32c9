import ChatProtocol
import ChatServerCore
import Testing

/// Registered nicks are reserved for every candidate a guest or a login may be given, on a node
/// that has read none of them yet (issue 23, finding 5).
@Suite struct ReservedNickTests {
    /// `neo` … `neo_10` registered through node a; through node b a guest asking for `neo` is
    /// `neo_11`, and a second device of `neo` logging in there is `neo_12`.
    @Test func everyCandidateIsReadBeforeItIsGiven() throws {
        let world = SharedLogWorld()
        try world.node("a")
        try world.node("b")
        let names = ["neo"] + (2...10).map { "neo_\($0)" }
        for (index, name) in names.enumerated() {
            let client = ClientID(1 + index)
            world.login(client, nick: name, on: "a")
            world.send(.register(password: "password-\(index)"), from: client, on: "a")
            world.settle()
            if index > 0 { world.disconnect(client, on: "a") }
        }
        world.settle()
        world.login(20, nick: "neo", on: "b")
        #expect(world.nodes["b"]!.chat(to: 20).first { $0.type == "welcome" }?.sender == "neo_11")
        world.login(21, nick: "visitor", on: "b")
        world.send(.login(account: "neo", password: "password-0"), from: 21, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.state.nick(of: 21) == "neo_12")
    }
}
