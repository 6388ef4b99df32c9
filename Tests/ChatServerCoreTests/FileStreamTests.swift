import ChatProtocol
import Foundation
import SQLiteStorage
import Testing

@testable import ChatServerCore

/// The core's side of file streams (PROTOCOL.md section 9): upload headers checked before the
/// body, the end of a body, idempotent ids, resume, downloads and who may make them, eviction
/// under `--files-max-bytes` and the expiry of interrupted uploads.
struct FileStreamTests {
    /// Alice (1) and Bob (2) in the lobby, Carol (3) connected elsewhere.
    static func threeClients(_ configuration: ChatServerConfiguration = ChatServerConfiguration(),
                             history: any HistoryStore = InMemoryHistoryStore()) throws -> Harness {
        var unlimited = configuration
        unlimited.floodBurst = 1_000_000
        let harness = try Harness(configuration: unlimited, history: history)
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        harness.login(3, nick: "carol", room: "elsewhere")
        return harness
    }

    /// A room upload: the header starts a job; the stored body is acked on its stream (with seq and
    /// the file id) and announced to the other members as a stored room event, replayed later.
    @Test func roomUploadIsAckedAnnouncedAndStored() throws {
        let harness = try Self.threeClients()
        let key = Harness.fileStream(1)
        let started = harness.upload("u1", size: 10, on: key)
        let job = try #require(started.uploadJobs.first?.job)
        #expect(job.size == 10 && job.offset == 0 && !job.resumes && job.sha256 == Harness.digest)
        #expect(job.partialKey.utf8.count == 32 && job.partialKey.allSatisfy(\.isHexDigit))
        #expect(started.fileStreamEnds.isEmpty && started.recipients.isEmpty)
        let ended = harness.uploadEnded(key, .stored)
        let ack = try #require(ended.fileStreamEnds.first)
        #expect(ack.key == key && !ack.stopSending)
        #expect(ack.message.type == "ack" && ack.message.id == "u1" && ack.message.seq != nil && ack.message.file != nil)
        let announced = try #require(ended.chat(to: 2).first)
        #expect(announced.type == "file" && announced.room == "lobby" && announced.sender == "alice" && announced.id == "u1")
        #expect(announced.file == ack.message.file && announced.size == 10 && announced.sha256 == Harness.digest)
        #expect(announced.seq == ack.message.seq && announced.text == "notes.txt")
        #expect(ended.chat(to: 1).isEmpty && ended.chat(to: 3).isEmpty)
        #expect(ended.discarded == [.partial(job.partialKey)])
        // Stored like msg: in `history`, replayed to a late joiner.
        let replay = harness.send(.join(room: "lobby"), from: 3).chat(to: 3).filter { $0.type == "file" }
        #expect(replay.first?.file == ack.message.file && replay.first?.replay == true)
    }

    /// A private upload goes to the recipient only, with `to` and without room or seq.
    @Test func privateUploadReachesTheRecipientOnly() throws {
        let harness = try Self.threeClients()
        let key = Harness.fileStream(1)
        harness.upload("p1", to: "Carol", on: key)
        let ended = harness.uploadEnded(key, .stored)
        let ack = try #require(ended.fileStreamEnds.first?.message)
        #expect(ack.type == "ack" && ack.seq == nil && ack.file != nil)
        let notice = try #require(ended.chat(to: 3).first)
        #expect(notice.type == "file" && notice.to == "carol" && notice.room == nil && notice.seq == nil && notice.file == ack.file)
        #expect(ended.recipients == [3])
    }

    /// Every refusal of the header, each before any body is read: error with the id, FIN, STOP_SENDING.
    @Test func headerRefusals() throws {
        var configuration = ChatServerConfiguration()
        configuration.maxFileSize = 1_000
        configuration.fileQuotaBytes = 1_500
        let harness = try Self.threeClients(configuration)
        let cases: [(ChatMessage, String)] = [
            (.upload(id: "bad id!", room: "lobby", name: "a", size: 1, sha256: Harness.digest), "bad-field"),
            (.upload(id: "u", room: "lobby", name: "a/b", size: 1, sha256: Harness.digest), "bad-field"),
            (.upload(id: "u", room: "lobby", name: "ctl\u{1B}[2J", size: 1, sha256: Harness.digest), "bad-field"),
            (.upload(id: "u", room: "lobby", name: "", size: 1, sha256: Harness.digest), "bad-field"),
            (.upload(id: "u", room: "lobby", name: "a", size: 1, sha256: "ABC"), "bad-field"),
            (.upload(id: "u", room: "lobby", name: "a", size: -1, sha256: Harness.digest), "bad-field"),
            (ChatMessage(type: "upload", text: "a", room: "lobby", id: "u", sha256: Harness.digest), "bad-field"),
            (.upload(id: "u", room: "lobby", name: "a", size: 1_001, sha256: Harness.digest), "too-large"),
            (.upload(id: "u", room: "elsewhere", name: "a", size: 1, sha256: Harness.digest), "not-joined"),
            (.upload(id: "u", room: "No Room", name: "a", size: 1, sha256: Harness.digest), "bad-room"),
            (.upload(id: "u", to: "nobody", name: "a", size: 1, sha256: Harness.digest), "no-such-user"),
            (.upload(id: "u", room: "lobby", name: "a", size: 1, sha256: Harness.digest, offset: 0), "bad-offset"),
            (ChatMessage(type: "msg", text: "hi", room: "lobby"), "unknown-type"),
            (.download(file: ""), "bad-field"),
        ]
        for (index, (message, code)) in cases.enumerated() {
            let key = Harness.fileStream(1, Int64(index))
            let out = harness.header(message, on: key)
            #expect(out.fileErrorCodes == [code], "\(message)")
            #expect(out.fileStreamEnds.allSatisfy { $0.key == key && $0.stopSending })
            #expect(out.uploadJobs.isEmpty && out.recipients.isEmpty)
        }
        let badOffset = harness.upload("u", size: 1, offset: 0, on: Harness.fileStream(1, 40)).fileStreamEnds.first?.message
        #expect(badOffset?.offset == 0 && badOffset?.id == "u")
        // The quota counts uploads in progress at their declared size.
        #expect(harness.upload("q1", size: 1_000, on: Harness.fileStream(1, 50)).uploadJobs.count == 1)
        #expect(harness.upload("q2", size: 501, on: Harness.fileStream(1, 51)).fileErrorCodes == ["quota-exceeded"])
        #expect(harness.upload("q3", size: 500, on: Harness.fileStream(1, 52)).uploadJobs.count == 1)
        // A malformed header is its decoding error; an oversized one closes the connection.
        let malformed = Outbox(harness.settle(harness.state.fileStreamHeader(.malformed(.badJSON, id: nil), on: Harness.fileStream(2), now: harness.now)))
        #expect(malformed.fileErrorCodes == ["bad-json"])
        let fatal = Outbox(harness.settle(harness.state.fileStreamHeader(.fatal(.tooLarge), on: Harness.fileStream(2, 1), now: harness.now)))
        #expect(fatal.closes.map(\.code) == [.protocolError])
    }

    /// Before hello, or on the legacy `chat` ALPN, a file stream is refused; each header counts toward the flood limit.
    @Test func fileStreamsNeedHelloAndCountAsMessages() throws {
        var configuration = ChatServerConfiguration()
        configuration.floodBurst = 3
        configuration.floodPerSecond = 0.001
        let harness = try Harness(configuration: configuration)
        harness.connect(1)
        #expect(harness.upload("u", on: Harness.fileStream(1)).fileErrorCodes == ["not-joined"])
        harness.login(2, nick: "old", presence: false, legacy: true)
        #expect(harness.upload("u", on: Harness.fileStream(2)).fileErrorCodes == ["not-joined"])
        harness.login(3, nick: "alice", presence: false)  // the join took one token
        #expect(harness.upload("a", on: Harness.fileStream(3, 0)).uploadJobs.count == 1)
        #expect(harness.header(.download(file: "x"), on: Harness.fileStream(3, 1)).fileErrorCodes == ["no-such-file"])
        #expect(harness.upload("c", on: Harness.fileStream(3, 2)).fileErrorCodes == ["rate-limited"])
    }

    /// The end of a body: a wrong checksum, an early FIN, too many bytes and a disk failure are
    /// explained on the stream and announce nothing; the partial bytes go.
    @Test(arguments: [
        (UploadOutcome.badChecksum, "bad-checksum"), (.incomplete(received: 3), "incomplete"), (.tooLong, "too-large"),
        (.failed(reason: "No space left on device"), "unavailable"),
    ])
    func failedBodiesAnnounceNothing(_ outcome: UploadOutcome, _ code: String) throws {
        let harness = try Self.threeClients()
        let key = Harness.fileStream(1)
        let job = try #require(harness.upload("u1", on: key).uploadJobs.first?.job)
        let ended = harness.uploadEnded(key, outcome)
        #expect(ended.fileErrorCodes == [code])
        #expect(ended.fileStreamEnds.first?.message.id == "u1")
        #expect(ended.recipients.isEmpty)
        #expect(ended.discarded == [.partial(job.partialKey)])
        // Nothing is held: a resume is told to start from 0; a fresh upload of the id works.
        #expect(harness.upload("u1", offset: 5, on: Harness.fileStream(1, 1)).fileErrorCodes == ["bad-offset"])
        #expect(harness.upload("u1", on: Harness.fileStream(1, 2)).uploadJobs.count == 1)
        #expect(harness.uploadEnded(key, .stored).effects.isEmpty)
    }

    /// An upload id already completed is acked again, the same way, and announced once.
    @Test func repeatedUploadIsAckedAgainAndAnnouncedOnce() throws {
        let harness = try Self.threeClients()
        let first = try #require(harness.shared("u1", on: Harness.fileStream(1)))
        harness.disconnect(1)
        harness.login(4, nick: "alice", peer: Harness.peer(1), presence: false)
        let again = harness.upload("u1", on: Harness.fileStream(4))
        #expect(again.fileStreamEnds.map(\.message) == [first])
        #expect(again.fileStreamEnds.first?.stopSending == true)
        #expect(again.uploadJobs.isEmpty && again.recipients.isEmpty)
    }

    /// An interrupted upload keeps its bytes; the same header with `offset` resumes the same partial
    /// file from there, on a new connection; a wrong offset is answered with the bytes held.
    @Test func interruptedUploadResumes() throws {
        let harness = try Self.threeClients()
        let key = Harness.fileStream(1)
        let job = try #require(harness.upload("u1", size: 100, on: key).uploadJobs.first?.job)
        #expect(harness.uploadEnded(key, .interrupted(held: 40)).effects.isEmpty)
        harness.disconnect(1)
        harness.login(5, nick: "alice", peer: Harness.peer(1), presence: false)
        let resumed = try #require(harness.upload("u1", size: 100, offset: 40, on: Harness.fileStream(5)).uploadJobs.first?.job)
        #expect(resumed == UploadJob(partialKey: job.partialKey, size: 100, sha256: Harness.digest, offset: 40, resumes: true,
                                     keepFree: ChatServerConfiguration().diskReserveBytes))
        let wrong = harness.uploadEnded(Harness.fileStream(5), .badOffset(held: 37)).fileStreamEnds.first?.message
        #expect(wrong?.code == "bad-offset" && wrong?.offset == 37)
        let again = try #require(harness.upload("u1", size: 100, offset: 37, on: Harness.fileStream(5, 1)).uploadJobs.first?.job)
        #expect(again.partialKey == job.partialKey && again.offset == 37)
        // A different file under the same id starts over, and the old bytes go.
        harness.uploadEnded(Harness.fileStream(5, 1), .interrupted(held: 50))
        let other = harness.upload("u1", size: 100, sha256: String(repeating: "0", count: 64), on: Harness.fileStream(5, 2))
        #expect(other.uploadJobs.first?.job.resumes == false && other.uploadJobs.first?.job.partialKey != job.partialKey)
        #expect(other.discarded == [.partial(job.partialKey)])
    }

    /// A second stream taking over an upload id still being received stops the first; its late report is ignored.
    @Test func newerStreamTakesOverAnUpload() throws {
        let harness = try Self.threeClients()
        harness.upload("u1", size: 100, on: Harness.fileStream(1))
        harness.uploadEnded(Harness.fileStream(1), .interrupted(held: 10))
        harness.upload("u1", size: 100, offset: 10, on: Harness.fileStream(1, 1))
        let takeover = harness.upload("u1", size: 100, offset: 10, on: Harness.fileStream(1, 2))
        #expect(takeover.abandoned == [Harness.fileStream(1, 1)])
        #expect(takeover.uploadJobs.count == 1)
        #expect(harness.uploadEnded(Harness.fileStream(1, 1), .interrupted(held: 60)).effects.isEmpty)
        #expect(harness.uploadEnded(Harness.fileStream(1, 2), .stored).chat(to: 2).first?.type == "file")
    }

    /// Downloads: members of the file's room get the header and the bytes from their offset; anyone
    /// else, and an unknown id, get no-such-file; an offset past the end is bad-offset.
    @Test func downloadsNeedMembership() throws {
        let harness = try Self.threeClients()
        let ack = try #require(harness.shared("u1", size: 10, on: Harness.fileStream(1)))
        let fileID = try #require(ack.file)
        let download = harness.header(.download(file: fileID, offset: 4), on: Harness.fileStream(2))
        let header = try #require(download.downloads.first)
        #expect(header.header == .fileHeader(file: fileID, name: "notes.txt", size: 10, sha256: Harness.digest, offset: 4))
        #expect(header.job.offset == 4 && header.job.size == 10 && header.job.sha256 == Harness.digest)
        #expect(harness.header(.download(file: fileID), on: Harness.fileStream(3)).fileErrorCodes == ["no-such-file"])
        #expect(harness.header(.download(file: "nope"), on: Harness.fileStream(2, 1)).fileErrorCodes == ["no-such-file"])
        let past = harness.header(.download(file: fileID, offset: 11), on: Harness.fileStream(2, 2))
        #expect(past.fileErrorCodes == ["bad-offset"] && past.fileStreamEnds.first?.message.offset == 10)
        // Leaving the room ends access; a new member has it.
        harness.send(.part(room: "lobby"), from: 2)
        #expect(harness.header(.download(file: fileID), on: Harness.fileStream(2, 3)).fileErrorCodes == ["no-such-file"])
        harness.send(.join(room: "lobby"), from: 3)
        #expect(harness.header(.download(file: fileID), on: Harness.fileStream(3, 1)).downloads.count == 1)
    }

    /// The glue found a download's stored bytes missing: `unavailable` on the stream (FIN,
    /// STOP_SENDING), logged; the header never went.
    @Test func missingBytesAreUnavailable() throws {
        let harness = try Self.threeClients()
        let out = Outbox(harness.settle(harness.state.downloadFailed(Harness.fileStream(2), reason: "the stored file is missing")))
        #expect(out.fileErrorCodes == ["unavailable"])
        #expect(out.fileStreamEnds.first?.stopSending == true && out.fileStreamEnds.first?.key == Harness.fileStream(2))
    }

    /// A private file is for its two parties only, by peer (also after a reconnect).
    @Test func privateFileIsForTheTwoParties() throws {
        let harness = try Self.threeClients()
        let fileID = try #require(harness.shared("p1", to: "carol", on: Harness.fileStream(1))?.file)
        #expect(harness.header(.download(file: fileID), on: Harness.fileStream(3)).downloads.count == 1)
        #expect(harness.header(.download(file: fileID), on: Harness.fileStream(1, 1)).downloads.count == 1)
        #expect(harness.header(.download(file: fileID), on: Harness.fileStream(2)).fileErrorCodes == ["no-such-file"])
        harness.disconnect(3)
        harness.login(6, nick: "carol", peer: Harness.peer(3), presence: false)
        #expect(harness.header(.download(file: fileID), on: Harness.fileStream(6)).downloads.count == 1)
    }

    /// The notice of a private file goes to its recipient when the upload ends only if the
    /// device the header found still holds the nick: a newcomer who took it learns nothing.
    @Test func privateFileNoticeOnlyForTheRecipientTheHeaderFound() throws {
        let harness = try Self.threeClients()
        harness.upload("p2", to: "carol", on: Harness.fileStream(1))
        harness.disconnect(3)
        harness.login(6, nick: "carol", peer: Harness.peer(6), presence: false)
        let stored = harness.uploadEnded(Harness.fileStream(1), .stored)
        #expect(stored.fileStreamEnds.first?.message.type == "ack")
        #expect(!stored.chat(to: 6).contains { $0.type == "file" })
        harness.upload("p3", to: "carol", on: Harness.fileStream(1, 1))
        #expect(harness.uploadEnded(Harness.fileStream(1, 1), .stored).chat(to: 6).map(\.type) == ["file"])
    }

    /// `--files-max-bytes` evicts the oldest files first (one uploader here); the same bytes are
    /// kept once and cost nothing more once stored; room is made when an upload begins.
    @Test func oldestFilesAreEvicted() throws {
        var configuration = ChatServerConfiguration()
        configuration.filesMaxBytes = 300
        let harness = try Self.threeClients(configuration)
        let first = try #require(harness.shared("a", size: 100, sha256: String(repeating: "1", count: 64), on: Harness.fileStream(1))?.file)
        harness.advance(1)
        let second = try #require(harness.shared("b", size: 100, sha256: String(repeating: "2", count: 64), on: Harness.fileStream(1, 1))?.file)
        harness.advance(1)
        let same = harness.upload("c", size: 100, sha256: String(repeating: "2", count: 64), on: Harness.fileStream(1, 2))
        #expect(same.uploadJobs.count == 1 && same.discarded.isEmpty)
        #expect(harness.uploadEnded(Harness.fileStream(1, 2), .stored).discarded.allSatisfy { if case .partial = $0 { true } else { false } })
        harness.advance(1)
        #expect(harness.shared("d", size: 100, sha256: String(repeating: "3", count: 64), on: Harness.fileStream(1, 3))?.type == "ack")
        harness.advance(1)
        // Full: the next upload's header makes room for what it may write, before its body.
        let evicting = harness.upload("e", size: 100, sha256: String(repeating: "4", count: 64), on: Harness.fileStream(1, 4))
        #expect(evicting.discarded == [.content(String(repeating: "1", count: 64))])
        #expect(harness.header(.download(file: first), on: Harness.fileStream(2)).fileErrorCodes == ["no-such-file"])
        #expect(harness.header(.download(file: second), on: Harness.fileStream(2, 1)).downloads.count == 1)
        // A file larger than the whole store is refused before its body.
        #expect(harness.upload("f", size: 301, on: Harness.fileStream(1, 5)).fileErrorCodes == ["too-large"])
    }

    /// Interrupted uploads wait at least an hour for their resume, then their bytes go.
    @Test func interruptedUploadsExpire() throws {
        let harness = try Self.threeClients()
        let job = try #require(harness.upload("u1", size: 100, on: Harness.fileStream(1)).uploadJobs.first?.job)
        harness.uploadEnded(Harness.fileStream(1), .interrupted(held: 10))
        harness.upload("u2", size: 100, on: Harness.fileStream(1, 1))
        harness.advance(3_600_000)
        #expect(harness.expireInterruptedUploads().actions.isEmpty)
        harness.advance(1)
        let expired = harness.expireInterruptedUploads()
        #expect(expired.discarded == [.partial(job.partialKey)])
        #expect(harness.upload("u1", size: 100, offset: 10, on: Harness.fileStream(1, 2)).fileErrorCodes == ["bad-offset"])
    }

    /// With the SQLite store, an interrupted upload resumes on a restarted server, and a stored file
    /// and its room event are still there.
    @Test func resumeAndFilesSurviveARestart() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        let partialKey: String
        let fileID: String
        do {
            let harness = try Self.threeClients(history: try SQLiteHistoryStore(path: path))
            fileID = try #require(harness.shared("done", on: Harness.fileStream(1))?.file)
            partialKey = try #require(harness.upload("u1", size: 100, on: Harness.fileStream(1, 1)).uploadJobs.first?.job.partialKey)
            harness.uploadEnded(Harness.fileStream(1, 1), .interrupted(held: 64))
        }
        let harness = try Self.threeClients(history: try SQLiteHistoryStore(path: path))
        let resumed = harness.upload("u1", size: 100, offset: 64, on: Harness.fileStream(1))
        #expect(resumed.uploadJobs.first?.job == UploadJob(partialKey: partialKey, size: 100, sha256: Harness.digest, offset: 64,
                                                           resumes: true, keepFree: ChatServerConfiguration().diskReserveBytes))
        #expect(harness.header(.download(file: fileID), on: Harness.fileStream(2)).downloads.count == 1)
        #expect(harness.send(.history(room: "lobby"), from: 2).chat(to: 2).contains { $0.type == "file" && $0.file == fileID })
    }
}
