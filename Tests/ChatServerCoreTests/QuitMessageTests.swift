import ChatProtocol
import ChatServerCore
import Testing

/// `/quit MESSAGE` (issue 24): a `quit` request closes the connection with NO_ERROR, and the
/// room mates' `left` says `quit: MESSAGE`, cleaned and cut.
@Suite struct QuitMessageTests {
    @Test func theLeftEventCarriesTheQuitMessage() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let out = harness.send(.quit(text: "gone home,\nsee you\u{07} tomorrow", id: "q1"), from: 1)
        #expect(out.closes.map(\.client) == [1] && out.closes.map(\.code) == [.noError], "\(out.closes)")
        let left = out.chat(to: 2).filter { $0.type == "left" }
        #expect(left.map(\.text) == ["quit: gone home, see you tomorrow"] && left.first?.sender == "alice", "\(left)")
    }

    @Test func aLongMessageIsCutAndNoneIsAPlainQuit() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.login(3, nick: "carol")
        let long = harness.send(.quit(text: String(repeating: "é", count: 300)), from: 1)
        let text = try #require(long.chat(to: 2).first { $0.type == "left" }?.text)
        #expect(text.hasPrefix("quit: é") && text.utf8.count <= "quit: ".utf8.count + ChatLimits.maxQuitMessageBytes, "\(text.utf8.count)")
        let plain = harness.send(.quit(text: ""), from: 3)
        #expect(plain.chat(to: 2).first { $0.type == "left" }?.text == "quit")
    }
}
