import ChatClientKit
import ChatProtocol
import Digest
import QuicEngine
import Testing
import TestSupport

/// The credit of a finished file stream comes back at once (issue 23 item 19): the server's
/// MAX_STREAMS must not wait for data or a timer.
@Suite("chat-server files: stream credit", .serialized)
struct FileStreamCreditTests {
    /// A client keeps four uploads open (all the file streams it may have), finishes the oldest,
    /// and opens the next the moment the server's MAX_STREAMS can arrive, six times over. The
    /// other uploads are idle, so what closes the finished stream on the server is the client's
    /// ACK of the server's answer, alone; the client sends no keep-alive, so nothing else would
    /// make the server write before its idle timeout (30 s, beyond the wait here): in about a
    /// third of the rounds before the fix the next stream stayed refused.
    @Test func theNextUploadOpensAsSoonAsOneFinishes() async throws {
        let rounds = try await scenario { world, _ -> [String] in
            let alice = try world.connectRaw { $0.keepAliveInterval = nil }
            alice.onConnected = { client in
                guard let chat = try? client.openStream(), let presence = try? client.openStream() else { return }
                client.write(ChatMessage.join(nick: "alice", peer: ChatSession.randomPeerID(), room: "lobby").encodedLine(), to: chat)
                client.write(ChatMessage.status("online").encodedLine(), to: presence)
            }
            guard world.run(until: { alice.has(type: "joined") }) else { return ["alice did not join"] }
            let body = FileTransferTests.bytes(1000)
            let pump = FileStreamPump()
            var uploads = 0
            func startUpload() throws -> QuicStreamID {
                uploads += 1
                let header = ChatMessage.upload(id: "up-\(uploads)", room: "lobby", name: "f\(uploads).bin", size: 1000,
                                                sha256: SHA256.hex(of: body))
                return try pump.send(header, body: FileStreamPump.Body(body), from: 0, to: 500, fin: false, on: alice)
            }
            var open = try (0..<4).map { _ in try startUpload() }
            var outcomes: [String] = []
            for round in 1...6 {
                // Quiet first: the open uploads' bytes are acknowledged, nothing is in flight.
                guard world.run(until: { open.allSatisfy { alice.connection.bufferedAmount($0) == 0 } }) else {
                    return outcomes + ["round \(round): the open uploads were never acknowledged"]
                }
                if (try? alice.connection.openStream(bulk: true)) != nil {
                    return outcomes + ["round \(round): a fifth file stream opened while four were"]
                }
                let finishing = open.removeFirst()
                try alice.connection.write(Array(body[500...]), to: finishing, fin: true)
                guard world.run(seconds: 30, until: { alice.finished.contains(finishing) }) else {
                    return outcomes + ["round \(round): the upload was not answered"]
                }
                let answer = alice.messages(on: finishing).first
                guard answer?.type == "ack" else { return outcomes + ["round \(round): \(String(describing: answer))"] }
                var next: QuicStreamID?
                let opened = world.run(seconds: 20) {
                    if next == nil { next = try? startUpload() }
                    return next != nil
                }
                outcomes.append(opened ? "opened" : "round \(round): no stream credit came back")
                guard let next else { break }
                open.append(next)
            }
            return outcomes
        }
        #expect(rounds == Array(repeating: "opened", count: 6))
    }
}
