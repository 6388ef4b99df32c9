import Foundation
import TestSupport
import Testing

/// A stand-in for a version 1.2 server (Tests/Fixtures/version12_server.py, on aioquic): it
/// welcomes with the 1.2 features, the account's rooms and conversations, acknowledges what it is
/// sent, prints it (`GOT {json}`), and sends whatever the test writes to it. Today's chat-server
/// does not speak 1.2 yet; this lets the real chat-client binary show it carries version 1.2
/// (issue 28, chat-client) as a user runs it.
final class Version12Server {
    let process: ChildProcess
    let port: UInt16

    static let welcome = #"{"text":"stub","features":["accounts","moderation","files","always-on","edits","reactions","search"],"#
        + #""rooms":[{"room":"lobby","seq":4,"read":4,"unread":0,"mentions":0},{"room":"ops","seq":40,"read":31,"unread":9,"mentions":2}],"#
        + #""conversations":[{"with":"bob","seq":7,"read":4,"unread":3,"mentions":3}]}"#

    init() throws {
        let python = try #require(AioquicVenv.python, "the aioquic venv (tools/interop/setup.sh) is needed")
        process = try ChildProcess(python, [BuildPaths.repository.appendingPathComponent("Tests/Fixtures/version12_server.py").path,
                                            "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey,
                                            "--welcome", Self.welcome])
        let ready = try #require(process.waitForLine(prefix: "READY ", timeout: 20), "\(process.errorOutput)")
        port = try #require(UInt16(ready.dropFirst("READY ".count)))
    }

    /// Sends a message to every client.
    func send(_ json: String) { process.write(json + "\n") }

    /// Waits for a message from a client with every one of `fields` (`"type": "edit"`, as the
    /// server prints them: sorted keys, `": "` and `", "` between).
    func waitForReceived(_ fields: String..., timeout: TimeInterval = 10) -> String? {
        process.waitForLine(timeout: timeout) { line in line.hasPrefix("GOT ") && fields.allSatisfy { line.contains($0) } }
    }

    func stop() { process.terminate() }
}

@Suite("version 1.2 client") struct Version12ClientTests {
    static let ts = 1_765_000_000_000

    /// Line mode: the account's rooms and conversations come back by themselves; messages show
    /// their numbers; /edit, /react and /reply send what section 15 says and print our changes
    /// at their ack; others' edits, another device's read and private message, the server's away
    /// answer and a search's results are printed; /away carries its reason. A command typed
    /// before the welcome waits for it (the first line of the script is one).
    @Test func lineModeCarriesVersion12() throws {
        let server = try Version12Server()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let dave = try home.lineClient(port: server.port, nick: "dave")
        defer { dave.terminate() }
        dave.write("/search nothing yet\n")
        #expect(server.waitForReceived(#""since": 31"#, #""room": "ops""#, #""type": "join""#) != nil, "\(server.process.outputLines)")
        #expect(server.waitForReceived(#""since": 4"#, #""type": "history""#, #""with": "bob""#) != nil)
        #expect(server.waitForReceived(#""text": "nothing yet""#, #""type": "search""#) != nil, "\(dave.errorOutput)")
        dave.write("hello\n")
        let own = try #require(dave.waitForLine(timeout: 10) { $0.hasSuffix("<dave> hello") }, "\(dave.outputLines)")
        let number = try #require(own.range(of: #"\[(\d+)\]"#, options: .regularExpression).map { String(own[$0].dropFirst().dropLast()) })
        dave.write("/edit fixed it\n")
        #expect(server.waitForReceived(#""ref": \#(number)"#, #""text": "fixed it""#, #""type": "edit""#) != nil)
        #expect(dave.waitForEvent("#lobby * dave edited [\(number)]: fixed it"), "\(dave.outputLines)")

        server.send(#"{"type":"msg","room":"lobby","sender":"bob","text":"hi dave","id":"b1","seq":200,"ts":\#(Self.ts)}"#)
        #expect(dave.waitForEvent("#lobby [200] <bob> hi dave"), "\(dave.outputLines)")
        dave.write("/react 200 👍\n")
        #expect(server.waitForReceived(#""ref": 200"#, #""type": "react""#) != nil)
        #expect(dave.waitForEvent("#lobby * dave reacted 👍 to [200]"), "\(dave.outputLines)")
        dave.write("/react 999 👍\n")
        #expect(dave.waitForLine(timeout: 10) { $0 == "chat-client: there is no message 999 here (/numbers shows each message's number)" } != nil)
        dave.write("/reply 200 yes, you\n")
        #expect(server.waitForReceived(#""ref": 200"#, #""text": "yes, you""#, #""type": "msg""#) != nil)
        #expect(dave.waitForLine(timeout: 10) { $0.hasSuffix("<dave> (re [200]) yes, you") } != nil, "\(dave.outputLines)")

        server.send(#"{"type":"edit","room":"lobby","sender":"bob","text":"hi all","ref":200,"seq":210,"ts":\#(Self.ts)}"#)
        #expect(dave.waitForEvent("#lobby * bob edited [200]: hi all"), "\(dave.outputLines)")
        server.send(#"{"type":"read","room":"ops","read":40}"#)
        #expect(dave.waitForLine(timeout: 10) { $0.hasSuffix("* #ops read up to [40] on another device") } != nil, "\(dave.outputLines)")
        server.send(#"{"type":"dm","sender":"dave","to":"bob","text":"from my phone","id":"p1","seq":8,"ts":\#(Self.ts)}"#)
        #expect(dave.waitForEvent("[8] -> *bob* from my phone"), "\(dave.outputLines)")
        server.send(#"{"type":"away","sender":"bob","text":"at lunch"}"#)
        #expect(dave.waitForLine(timeout: 10) { $0.hasSuffix("* bob is away: at lunch") } != nil, "\(dave.outputLines)")
        server.send(#"{"type":"found","room":"lobby","text":"hi","events":[{"type":"msg","room":"lobby","sender":"bob","text":"hi all","seq":200,"ts":\#(Self.ts),"edited":\#(Self.ts)}]}"#)
        #expect(dave.waitForEvent("* 1 found in #lobby for 'hi', newest first:"), "\(dave.outputLines)")
        #expect(dave.waitForEvent("#lobby [200] <bob> hi all"), "\(dave.outputLines)")
        dave.write("/redact 200\n")
        #expect(server.waitForReceived(#""ref": 200"#, #""type": "redact""#) != nil)
        #expect(dave.waitForEvent("#lobby * dave removed [200]"), "\(dave.outputLines)")
        dave.write("/react 200 👍\n")
        #expect(dave.waitForLine(timeout: 10) { $0 == "chat-client: message 200 was removed" } != nil, "\(dave.errorOutput)")
        dave.write("/away gone fishing\n")
        #expect(server.waitForReceived(#""away": "gone fishing""#, #""text": "away""#, #""type": "status""#) != nil)
        #expect(!dave.errorOutput.contains { $0.contains("does not support") }, "\(dave.errorOutput)")
    }

    /// Full screen: the bar shows the counts `welcome` gave (weechat's hotlist); another
    /// device's read clears them; /numbers, an edit of our own message applied at its ack,
    /// others' reactions; another device's message shown as our own.
    @Test func fullScreenCarriesVersion12() throws {
        let server = try Version12Server()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let dave = try DailyDriverTests.fullScreen(home, port: server.port, nick: "dave")
        #expect(dave.waitFor { $0.joined().contains("ops(9,2!)") && $0.joined().contains("@bob(3,3!)") }, "\(dave.dump)")
        server.send(#"{"type":"read","room":"ops","read":40}"#)
        #expect(dave.waitFor { !$0.joined().contains("ops(9,2!)") && $0.joined().contains("@bob(3,3!)") }, "\(dave.dump)")

        try DailyDriverTests.enter(dave, "mine")
        #expect(server.waitForReceived(#""text": "mine""#, #""type": "msg""#) != nil)
        try DailyDriverTests.enter(dave, "/numbers")
        #expect(dave.waitFor { screen in screen.contains { $0.range(of: #"\[\d+\] <dave> mine"#, options: .regularExpression) != nil } }, "\(dave.dump)")
        try DailyDriverTests.enter(dave, "/edit mine, fixed")
        #expect(server.waitForReceived(#""text": "mine, fixed""#, #""type": "edit""#) != nil)
        #expect(dave.waitFor { $0.joined().contains("<dave> mine, fixed (edited)") }, "\(dave.dump)")

        server.send(#"{"type":"msg","room":"lobby","sender":"bob","text":"look","id":"b2","seq":300,"ts":\#(Self.ts)}"#)
        server.send(#"{"type":"react","room":"lobby","sender":"carol","text":"🎉","ref":300,"seq":301,"ts":\#(Self.ts)}"#)
        #expect(dave.waitFor { $0.joined().contains("[300] <bob> look  🎉 1") }, "\(dave.dump)")
        server.send(#"{"type":"msg","room":"lobby","sender":"dave","text":"typed on my phone","id":"p2","seq":302,"ts":\#(Self.ts)}"#)
        #expect(dave.waitFor { $0.joined().contains("[302] <dave> typed on my phone") }, "\(dave.dump)")
        try DailyDriverTests.enter(dave, "/edit 302 typed on my phone, fixed here")
        #expect(server.waitForReceived(#""ref": 302"#, #""type": "edit""#) != nil, "\(dave.dump)")

        // The conversation's history (a replayed dm) fills its buffer without counting as unread.
        server.send(#"{"type":"dm","sender":"bob","to":"dave","text":"while you were away","id":"h1","seq":5,"replay":true,"ts":\#(Self.ts)}"#)
        server.send(#"{"type":"msg","room":"lobby","sender":"bob","text":"after the replay","id":"b3","seq":303,"ts":\#(Self.ts)}"#)
        #expect(dave.waitFor { $0.joined().contains("after the replay") && $0.joined().contains("@bob(3,3!)") }, "\(dave.dump)")
        try DailyDriverTests.enter(dave, "/buffer bob")
        #expect(dave.waitFor { $0.joined().contains("*bob* while you were away") }, "\(dave.dump)")
    }

    /// `/search` on the server: what it found in the `=search` view; Enter shows the newest in
    /// its place (scrolled back to it, emphasised); one the buffer no longer holds is asked for
    /// with the messages around it (`history` before N + 11, limit 21).
    @Test func searchResultsShowTheMessageInItsPlace() throws {
        let server = try Version12Server()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let dave = try DailyDriverTests.fullScreen(home, port: server.port, nick: "dave")
        #expect(dave.waitFor { $0.joined().contains("ops(9,2!)") }, "\(dave.dump)")
        server.send(#"{"type":"msg","room":"lobby","sender":"bob","text":"deploy on friday","id":"d1","seq":500,"ts":\#(Self.ts)}"#)
        for index in 1...40 {
            server.send(#"{"type":"msg","room":"lobby","sender":"carol","text":"filler \#(index)","id":"f\#(index)","seq":\#(500 + index),"ts":\#(Self.ts)}"#)
        }
        #expect(dave.waitFor { $0.joined().contains("filler 40") && !$0.joined().contains("deploy on friday") }, "\(dave.dump)")
        try DailyDriverTests.enter(dave, "/search deploy friday")
        #expect(server.waitForReceived(#""room": "lobby""#, #""text": "deploy friday""#, #""type": "search""#) != nil)
        server.send(#"{"type":"found","room":"lobby","text":"deploy friday","events":[{"type":"msg","room":"lobby","sender":"bob","text":"deploy on friday","seq":500,"ts":\#(Self.ts)}]}"#)
        #expect(dave.waitFor { $0.joined().contains("1 found in #lobby for 'deploy friday'") && $0.joined().contains("<bob> deploy on friday") },
                "\(dave.dump)")
        try dave.press("Enter")
        #expect(dave.waitFor { $0.joined().contains("<bob> deploy on friday") && $0.joined().contains("more below") && !$0.joined().contains("found in") },
                "\(dave.dump)")

        try DailyDriverTests.enter(dave, "/search old")
        #expect(server.waitForReceived(#""text": "old""#, #""type": "search""#) != nil)
        server.send(#"{"type":"found","room":"lobby","text":"old","events":[{"type":"msg","room":"lobby","sender":"bob","text":"an old one","seq":7,"ts":\#(Self.ts)}]}"#)
        #expect(dave.waitFor { $0.joined().contains("1 found in #lobby for 'old'") }, "\(dave.dump)")
        try DailyDriverTests.enter(dave, "7")
        #expect(server.waitForReceived(#""before": 18"#, #""limit": 21"#, #""room": "lobby""#, #""type": "history""#) != nil, "\(dave.dump)")
        #expect(dave.waitFor { $0.joined().contains("message 7 is no longer stored") }, "\(dave.dump)")
    }
}
