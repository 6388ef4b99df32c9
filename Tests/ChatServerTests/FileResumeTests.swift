import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing
import TestSupport

/// End to end, resuming uploads (PROTOCOL.md section 9): after the uploading client went away
/// mid-body, and after a server restart with `--db`; downloads from an offset.
@Suite("chat-server file resume", .serialized)
struct FileResumeTests {
    static let body = FileStreamPump.Body(repeating: FileTransferTests.bytes(100_000, seed: 3), count: 3_000_000)
    static let half = 1_200_000

    static func header(offset: Int64? = nil) -> ChatMessage {
        .upload(id: "resume-1", room: "lobby", name: "big.bin", size: Int64(body.count), sha256: body.sha256, offset: offset)
    }

    struct Outcome: Sendable {
        var firstAnswer: ChatMessage?
        var ack: ChatMessage?
        var tail: [UInt8] = []
        var tailHeader: ChatMessage?
        var problems: [String] = []
    }

    /// Sends the first `half` bytes of the body and waits until the server has acknowledged all of them.
    static func sendHalf(_ world: ChatTestWorld, peer: String) throws -> RawChatClient {
        let alice = try FileTransferTests.joined(world, "alice", peer: peer)
        let pump = FileStreamPump()
        let stream = try pump.send(header(), body: body, to: half, fin: false, on: alice)
        _ = world.run(seconds: 60) { pump.isWritten(stream) && alice.connection.bufferedAmount(stream) == 0 }
        return alice
    }

    /// A new peer sends the first half of the upload through the server on `port`, then its
    /// connection ends; the world is returned to be kept until the test is done with it.
    static func interruptedHalf(port: UInt16) throws -> (peer: String, world: ChatTestWorld) {
        let peer = ChatSession.randomPeerID()
        let world = try ChatTestWorld(port: port)
        let alice = try sendHalf(world, peer: peer)
        alice.connection.close(applicationCode: 0, reason: "gone")
        _ = world.run(seconds: 10) { alice.closeReason != nil }
        return (peer, world)
    }

    /// Resumes with the same peer from `half`; after a `bad-offset`, from what the server holds
    /// (again, a few times: on a node of several the interrupted upload's last bytes may still be
    /// being written by the node that received them). `beforeRetry` runs at the first
    /// `bad-offset`. Then bob downloads the file from byte 2,000,000 on.
    static func resume(_ world: ChatTestWorld, peer: String, into outcome: inout Outcome, beforeRetry: () -> Void = {}) throws {
        let alice = try FileTransferTests.joined(world, "alice", peer: peer)
        let bob = try FileTransferTests.joined(world, "bob")
        let pump = FileStreamPump()
        var stream = try pump.send(header(offset: Int64(half)), body: body, from: half, on: alice)
        _ = world.run(seconds: 60) { alice.finished.contains(stream) }
        outcome.firstAnswer = alice.messages(on: stream).first
        if outcome.firstAnswer?.code == "bad-offset" { beforeRetry() }
        for _ in 0..<10 {
            guard let answer = alice.messages(on: stream).first, answer.code == "bad-offset", let held = answer.offset else { break }
            stream = try pump.send(header(offset: held), body: body, from: Int(held), on: alice)
            _ = world.run(seconds: 60) { alice.finished.contains(stream) }
        }
        outcome.ack = alice.messages(on: stream).last
        guard let fileID = outcome.ack?.file else { return outcome.problems.append("no ack: \(alice.messages(on: stream))") }
        let download = try pump.send(.download(file: fileID, offset: 2_000_000), on: bob)
        guard world.run(seconds: 60, until: { bob.finished.contains(download) }) else { return outcome.problems.append("no download") }
        let answer = bob.bytes[download] ?? []
        guard let newline = answer.firstIndex(of: 10) else { return outcome.problems.append("no header") }
        outcome.tailHeader = try? ChatMessage.decode(Array(answer[..<newline]))
        outcome.tail = Array(answer[(newline + 1)...])
    }

    /// `firstFits`: on one server the whole first half reached its disk before the resume's
    /// header (its file worker takes jobs in order), so the resume fits at once; through another
    /// node it may have to wait for the first node's last writes (`bad-offset`, then again).
    static func check(_ outcome: Outcome, firstFits: Bool = true) {
        #expect(outcome.problems.isEmpty)
        if firstFits {
            #expect(outcome.firstAnswer?.type == "ack", "\(String(describing: outcome.firstAnswer))")
        } else {
            #expect(outcome.firstAnswer?.type == "ack" || outcome.firstAnswer?.code == "bad-offset", "\(String(describing: outcome.firstAnswer))")
        }
        #expect(outcome.ack?.type == "ack" && outcome.ack?.id == "resume-1")
        #expect(outcome.tailHeader?.offset == 2_000_000 && outcome.tailHeader?.size == Int64(body.count))
        // Compared outside #expect: on a mismatch it would diff two megabytes element by element.
        let tailMatches = outcome.tail == body.slice(2_000_000..<body.count)
        #expect(tailMatches, "the downloaded tail (\(outcome.tail.count) bytes) differs from the file's")
    }

    /// The uploading client's connection ends mid-body; the same peer reconnects and resumes from
    /// the bytes sent; the stored file is the whole file.
    @Test func resumeAfterTheClientWentAway() async throws {
        let outcome = try await scenario { world, _ -> Outcome in
            var outcome = Outcome()
            let peer = ChatSession.randomPeerID()
            let first = try Self.sendHalf(world, peer: peer)
            first.connection.close(applicationCode: 0, reason: "gone")
            _ = world.run(seconds: 10) { first.closeReason != nil }
            try Self.resume(world, peer: peer, into: &outcome)
            return outcome
        }
        Self.check(outcome)
    }

    /// The server stops mid-upload and starts again on the same `--db`: the upload resumes there.
    @Test(.standaloneOnly("restarts the server on the same --db"))
    func resumeAfterAServerRestart() async throws {
        let database = temporaryDatabasePath()
        let peer = ChatSession.randomPeerID()
        let first = try ChatServerProcess(["--db", database])
        let port = first.port
        _ = try await onDedicatedThread {
            let world = try ChatTestWorld(port: port)
            let alice = try Self.sendHalf(world, peer: peer)
            return alice.connection.bufferedAmount(8)
        }
        first.stop()
        let second = try ChatServerProcess(["--db", database])
        defer { second.stop() }
        let port2 = second.port
        let outcome = try await onDedicatedThread { () -> Outcome in
            var outcome = Outcome()
            let world = try ChatTestWorld(port: port2)
            try Self.resume(world, peer: peer, into: &outcome)
            return outcome
        }
        Self.check(outcome)
    }
}
