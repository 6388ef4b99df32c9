import ChatProtocol
@testable import ChatServerCore
import Testing

/// A private file (PROTOCOL.md section 9) for a user connected through another node (section 10):
/// found by its nick's lease before the header is answered, told through its node's inbox, and
/// allowed to download it by device through any node.
struct SharedPrivateFileTests {
    private let world = SharedLogWorld()
    private var fileID: String? = nil

    /// alice on node a sends bob on node b a private file; carol is on b too.
    init() throws {
        let catalog = InMemoryFileCatalog(history: InMemoryHistoryStore())
        try world.node("a", files: catalog)
        try world.node("b", files: catalog)
        world.login(1, nick: "alice", on: "a")
        world.login(2, nick: "bob", on: "b")
        world.login(3, nick: "carol", on: "b")
        let key = Harness.fileStream(1)
        let header = upload("u1", to: "bob", on: key)
        // The header waits for the recipient's lease: nothing answered, no body read yet.
        #expect(header.uploadJobs.isEmpty && header.fileStreamEnds.isEmpty)
        world.settle()
        #expect(world.nodes["a"]!.outbox.uploadJobs.map(\.key) == [key])
        // The record is stored through the shared store, then acknowledged.
        world.take(world.nodes["a"]!.state.uploadEnded(key, .stored, now: world.now), on: "a")
        world.settle()
        fileID = world.nodes["a"]!.outbox.fileStreamEnds.first { $0.message.type == "ack" }?.message.file
    }

    @discardableResult
    private func upload(_ id: String, to nick: String, on key: FileStreamKey) -> Outbox {
        let header = ChatMessage.upload(id: id, room: nil, to: nick, name: "notes.txt", size: 10, sha256: Harness.digest, offset: nil)
        return world.take(world.nodes["a"]!.state.fileStreamHeader(.message(header), on: key, now: world.now), on: "a")
    }

    /// What the download's header brings on `node`, its file record read from the shared store first.
    private func download(_ file: String, on node: String, _ key: FileStreamKey) -> Outbox {
        let before = world.nodes[node]!.actions.count
        world.take(world.nodes[node]!.state.fileStreamHeader(.message(.download(file: file)), on: key, now: world.now), on: node)
        world.settle()
        return Outbox(Array(world.nodes[node]!.actions[before...]))
    }

    @Test func theRecipientOnAnotherNodeIsToldAndMayDownload() throws {
        let file = try #require(fileID)
        let notice = try #require(world.nodes["b"]!.chat(to: 2).last)
        #expect([notice.type, notice.sender, notice.to, notice.file, notice.text] == ["file", "alice", "bob", file, "notes.txt"])
        #expect(notice.room == nil && notice.seq == nil)
        #expect(!world.nodes["b"]!.chat(to: 3).contains { $0.type == "file" })
        #expect(download(file, on: "b", Harness.fileStream(2)).downloads.count == 1)
        #expect(download(file, on: "a", Harness.fileStream(1, 1)).downloads.count == 1)
        #expect(download(file, on: "b", Harness.fileStream(3)).fileErrorCodes == ["no-such-file"])
    }

    /// The recipient moves to the uploader's node (same device): still one of the two parties. A
    /// newcomer who takes the nick on another device is not.
    @Test func theRecipientIsKnownByDeviceWhereverItConnects() throws {
        let file = try #require(fileID)
        world.disconnect(2, on: "b")
        world.settle()
        world.connect(4, on: "a")
        world.send(.join(nick: "bob", peer: SharedLogWorld.peer(2), room: "lobby"), from: 4, on: "a")
        world.settle()
        #expect(download(file, on: "a", Harness.fileStream(4)).downloads.count == 1)
        world.disconnect(4, on: "a")
        world.settle()
        world.login(5, nick: "bob", on: "b")
        #expect(download(file, on: "b", Harness.fileStream(5)).fileErrorCodes == ["no-such-file"])
    }

    /// A nick nobody holds is `no-such-user` once looked up; a store that cannot be reached is
    /// `unavailable` (the client sends the upload again later); neither reads any of the body.
    @Test func nobodyAndAnUnreachableStoreAreRefused() {
        upload("u2", to: "nobody", on: Harness.fileStream(1, 1))
        world.settle()
        #expect(world.nodes["a"]!.outbox.fileStreamEnds.last.map { [$0.message.code, $0.message.id] } == ["no-such-user", "u2"])
        world.unavailable = true
        upload("u3", to: "bob", on: Harness.fileStream(1, 2))
        world.settle()
        #expect(world.nodes["a"]!.outbox.fileStreamEnds.last.map { [$0.message.code, $0.message.id] } == ["unavailable", "u3"])
        #expect(world.nodes["a"]!.outbox.uploadJobs.count == 1)
    }

    /// The notice follows the nick to the node holding it when the file is stored, and only while
    /// the same device holds it.
    @Test func theNoticeGoesWhereTheRecipientIsWhenTheFileIsStored() throws {
        let key = Harness.fileStream(1, 3)
        upload("u4", to: "carol", on: key)
        world.settle()
        // carol moves from b to a (same device) while the body arrives.
        world.disconnect(3, on: "b")
        world.settle()
        world.connect(6, on: "a")
        world.send(.join(nick: "carol", peer: SharedLogWorld.peer(3), room: "lobby"), from: 6, on: "a")
        world.settle()
        world.take(world.nodes["a"]!.state.uploadEnded(key, .stored, now: world.now), on: "a")
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 6).last.map { [$0.type, $0.id, $0.to] } == ["file", "u4", "carol"])
        #expect(!world.nodes["b"]!.chat(to: 3).contains { $0.type == "file" })
    }
}
