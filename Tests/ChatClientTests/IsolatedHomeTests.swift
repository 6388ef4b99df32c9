import Foundation
import TestSupport
import Testing

/// Tests never write into the real home: a chat-client started without a ``ClientHome`` of its
/// test (as LocalNetworkTests' `nameCollisionAndDaemonRestart` did with `--trust-on-first-use`,
/// leaving `name:` lines in root's known_servers) has the test process's ``IsolatedHome``, in a
/// pane of tmux too.
@Suite("tests keep out of the real home", .serialized)
struct IsolatedHomeTests {
    @Test func aClientStartedBareWritesIntoTheIsolatedHome() throws {
        let realHome = try #require(ProcessInfo.processInfo.environment["HOME"])
        #expect(realHome != IsolatedHome.path)
        let realKnown = realHome + "/.config/qchat/known_servers"
        let before = try? String(contentsOfFile: realKnown, encoding: .utf8)
        let server = try TrustOnFirstUseTests.SelfSignedServer()
        let client = try ChildProcess(BuildPaths.product("chat-client"),
                                      ["--host", "127.0.0.1", "--port", "\(server.port)", "--nick", "bare", "--plain", "--trust-on-first-use"])
        client.write("hello from nowhere\n")
        #expect(client.waitForLine(timeout: 10) { untimed($0) == "#lobby <bare> hello from nowhere" } != nil, "\(client.errorOutput)")
        client.closeInput()
        #expect(client.finish(timeout: 10).status == 0)
        let known = try String(contentsOfFile: IsolatedHome.path + "/.config/qchat/known_servers", encoding: .utf8)
        #expect(known.contains("127.0.0.1 \(server.port) sha256:\(server.fingerprint)"), "\(known)")
        #expect((try? String(contentsOfFile: realKnown, encoding: .utf8)) == before)
        #expect((try? String(contentsOfFile: realKnown, encoding: .utf8))?.contains("\(server.port) sha256:\(server.fingerprint)") != true)

        let pane = try TmuxSession(command: "echo \"home=$HOME config=$XDG_CONFIG_HOME\"; sleep 30", columns: 200, rows: 5)
        #expect(pane.waitFor { $0.joined().contains("home=\(IsolatedHome.path) config=\(IsolatedHome.path)/.config") }, "\(pane.screen())")
    }
}
