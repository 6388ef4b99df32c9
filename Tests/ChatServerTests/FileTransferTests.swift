import ChatClientKit
import ChatProtocol
import Digest
import Foundation
import QuicEngine
import Testing
import TestSupport

/// End to end, files on their own streams (PROTOCOL.md section 9) against the real server: raw
/// clients upload and download on bulk streams; members see the `file` event; checksums match.
@Suite("chat-server files", .serialized)
struct FileTransferTests {
    /// Pseudo-random bytes, the same for the same seed.
    static func bytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// A raw client that said hello in `room` (and has its presence stream).
    static func joined(_ world: ChatTestWorld, _ nick: String, room: String = "lobby", peer: String = ChatSession.randomPeerID())
        throws -> RawChatClient
    {
        let client = try world.connectRaw()
        client.onConnected = { client in
            guard let chat = try? client.openStream(), let presence = try? client.openStream() else { return }
            client.write(ChatMessage.join(nick: nick, peer: peer, room: room).encodedLine(), to: chat)
            client.write(ChatMessage.status("online").encodedLine(), to: presence)
        }
        _ = world.run { client.has(type: "joined") { $0.sender == nick } }
        return client
    }

    struct Shared: Sendable {
        var ack: ChatMessage?
        var announced: ChatMessage?
        var downloaded: [UInt8] = []
        var header: ChatMessage?
        var problems: [String] = []
    }

    /// Uploads `body` from alice to the lobby, bob sees the file event and downloads it whole
    /// (two clients joined here unless given, both in the lobby).
    static func shareAndFetch(_ body: FileStreamPump.Body, world: ChatTestWorld,
                              between clients: (alice: RawChatClient, bob: RawChatClient)? = nil) throws -> Shared {
        var shared = Shared()
        let alice = try clients?.alice ?? joined(world, "alice")
        let bob = try clients?.bob ?? joined(world, "bob")
        let pump = FileStreamPump()
        let upload = try pump.send(.upload(id: "up-1", room: "lobby", name: "data.bin", size: Int64(body.count),
                                           sha256: body.sha256), body: body, on: alice)
        guard world.run(seconds: 120, until: { alice.finished.contains(upload) && bob.has(type: "file") }) else {
            shared.problems.append("no ack or announcement: \(alice.messages(on: upload))")
            return shared
        }
        shared.ack = alice.messages(on: upload).first
        shared.announced = bob.messages(on: 0, type: "file").first
        guard let fileID = shared.announced?.file else { return shared }
        let download = try pump.send(.download(file: fileID), on: bob)
        guard world.run(seconds: 120, until: { bob.finished.contains(download) }) else {
            shared.problems.append("download did not finish")
            return shared
        }
        let answer = bob.bytes[download] ?? []
        guard let newline = answer.firstIndex(of: 10) else { return shared }
        shared.header = try? ChatMessage.decode(Array(answer[..<newline]))
        shared.downloaded = Array(answer[(newline + 1)...])
        return shared
    }

    /// 0-byte, 1-byte and 1 MiB files go up and come down intact: ack with seq and file id,
    /// the `file` event with the sender, name, size and checksum, the download's header and bytes.
    @Test(arguments: [0, 1, 1 << 20])
    func uploadAndDownload(_ size: Int) async throws {
        let body = Self.bytes(size, seed: UInt64(size) + 7)
        let shared = try await scenario { world, _ in try Self.shareAndFetch(FileStreamPump.Body(body), world: world) }
        #expect(shared.problems.isEmpty)
        let ack = try #require(shared.ack)
        #expect(ack.type == "ack" && ack.id == "up-1" && ack.seq != nil && ack.file != nil)
        let announced = try #require(shared.announced)
        #expect(announced.sender == "alice" && announced.text == "data.bin" && announced.size == Int64(size))
        #expect(announced.sha256 == SHA256.hex(of: body) && announced.file == ack.file && announced.seq == ack.seq)
        #expect(shared.header?.type == "file" && shared.header?.size == Int64(size) && shared.header?.offset == 0)
        #expect(shared.downloaded.count == size)
        #expect(SHA256.hex(of: shared.downloaded) == SHA256.hex(of: body))
    }

    struct Refusals: Sendable {
        var codes: [String: String] = [:]
        var fifthStreamRefused = false
        var chatStillWorks = false
    }

    /// Refusals on the stream: a wrong checksum, a FIN before the size, a non-member's download,
    /// an unknown file; a fifth file stream cannot be opened while four are; chat goes on.
    @Test func refusalsAndTheStreamLimit() async throws {
        let result = try await scenario { world, _ -> Refusals in
            var result = Refusals()
            let alice = try Self.joined(world, "alice")
            let carol = try Self.joined(world, "carol", room: "elsewhere")
            let pump = FileStreamPump()
            let body = Self.bytes(1000)
            let wrong = try pump.send(.upload(id: "w", room: "lobby", name: "a", size: 1000, sha256: String(repeating: "0", count: 64)),
                                      body: body, on: alice)
            let short = try pump.send(.upload(id: "s", room: "lobby", name: "a", size: 2000, sha256: SHA256.hex(of: body)), body: body,
                                      on: alice)
            let good = try pump.send(.upload(id: "g", room: "lobby", name: "a", size: 1000, sha256: SHA256.hex(of: body)), body: body,
                                     on: alice)
            _ = world.run(seconds: 30) { [wrong, short, good].allSatisfy { alice.finished.contains($0) } }
            result.codes["wrong"] = alice.messages(on: wrong).first?.code
            result.codes["short"] = alice.messages(on: short).first?.code
            let fileID = alice.messages(on: good).first?.file ?? "none"
            let stranger = try pump.send(.download(file: fileID), on: carol)
            let unknown = try pump.send(.download(file: "0123"), on: carol)
            _ = world.run(seconds: 30) { carol.finished.contains(stranger) && carol.finished.contains(unknown) }
            result.codes["stranger"] = carol.messages(on: stranger).first?.code
            result.codes["unknown"] = carol.messages(on: unknown).first?.code
            // Four uploads left open take a new client's four file streams; a fifth is not allowed.
            let dave = try Self.joined(world, "dave")
            for index in 0..<4 {
                try pump.send(.upload(id: "open-\(index)", room: "lobby", name: "a", size: 10, sha256: SHA256.hex(of: body)),
                              body: [1, 2], fin: false, on: dave)
            }
            do {
                _ = try dave.connection.openStream(bulk: true)
            } catch QuicError.streamLimitReached {
                result.fifthStreamRefused = true
            } catch {}
            dave.write(ChatMessage.msg(room: "lobby", text: "still here", id: "m-1").encodedLine(), to: 0)
            result.chatStillWorks = world.run(seconds: 10) { dave.has(type: "ack") { $0.id == "m-1" } && alice.has(type: "msg") }
            return result
        }
        #expect(result.codes == ["wrong": "bad-checksum", "short": "incomplete", "stranger": "no-such-file", "unknown": "no-such-file"])
        #expect(result.fifthStreamRefused)
        #expect(result.chatStillWorks)
    }

    /// A record whose bytes are gone from the folder (restored apart from its database, or a node
    /// of several on a folder of its own; issue 23, item 21) is answered `unavailable` before any
    /// header, never the header and then a reset.
    @Test(.standaloneOnly("removes a stored file from the folder it names"))
    func missingBytesAreUnavailableBeforeAnyHeader() async throws {
        let database = temporaryDatabasePath()
        let folder = database + ".files"
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: database)
        }
        let body = FileStreamPump.Body(Self.bytes(70_000, seed: 71))
        let answer = try await scenario(server: ["--db", database, "--files", folder]) { world, _ -> (ChatMessage?, Int, Bool) in
            let alice = try Self.joined(world, "alice")
            let pump = FileStreamPump()
            let upload = try pump.send(.upload(id: "gone-1", room: "lobby", name: "gone.bin", size: Int64(body.count), sha256: body.sha256),
                                       body: body, on: alice)
            _ = world.run(seconds: 60) { alice.finished.contains(upload) }
            guard let file = alice.messages(on: upload).first?.file else { return (nil, 0, false) }
            try FileManager.default.removeItem(atPath: folder + "/content/" + body.sha256)
            let download = try pump.send(.download(file: file), on: alice)
            _ = world.run(seconds: 30) { alice.finished.contains(download) || alice.resets.contains { $0.stream == download } }
            return (alice.messages(on: download).first, alice.bytes[download]?.count ?? 0,
                    alice.resets.contains { $0.stream == download })
        }
        #expect(answer.0?.type == "error" && answer.0?.code == "unavailable", "\(String(describing: answer.0))")
        #expect(!answer.2, "the download was reset after \(answer.1) bytes")
    }
}
