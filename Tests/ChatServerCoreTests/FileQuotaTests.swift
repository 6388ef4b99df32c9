import ChatProtocol
import Testing

@testable import ChatServerCore

/// What uploads may hold (issue 23; PROTOCOL.md section 9 notes): uploads in progress and
/// interrupted ones count against `--files-max-bytes` and the quotas, a guest's quota is its
/// address's too, eviction takes from the party holding the most, and the disk reserve stops an
/// upload with what it sent kept.
struct FileQuotaTests {
    static let content = (1...9).map { String(repeating: String($0), count: 64) }

    /// Guests with fresh peer ids each: interrupted uploads stay charged what they hold, and all
    /// uploads together may not pass `--files-max-bytes` (stored files cannot make room for them).
    @Test func interruptedUploadsCountAgainstFilesMaxBytes() throws {
        var configuration = ChatServerConfiguration()
        configuration.filesMaxBytes = 1_000
        let harness = try FileStreamTests.threeClients(configuration)
        for guest in UInt64(10)..<13 {
            harness.login(guest, nick: "guest\(guest)", presence: false)
            let key = Harness.fileStream(guest)
            #expect(harness.upload("big", size: guest == 12 ? 200 : 400, sha256: Self.content[0], on: key).uploadJobs.count == 1)
            harness.uploadEnded(key, .interrupted(held: guest == 12 ? 100 : 400))
            harness.disconnect(guest)
        }
        // 400 + 400 + 100 held: room for 100 more, not for 101.
        harness.login(20, nick: "late", presence: false)
        #expect(harness.upload("u", size: 101, on: Harness.fileStream(20)).fileErrorCodes == ["quota-exceeded"])
        #expect(harness.upload("v", size: 100, on: Harness.fileStream(20, 1)).uploadJobs.count == 1)
        // An upload being received is charged its whole size.
        #expect(harness.upload("w", size: 1, on: Harness.fileStream(20, 2)).fileErrorCodes == ["quota-exceeded"])
        // A resume is charged its size, in place of what it holds: guest 12 goes on once there is room.
        harness.login(12, nick: "guest12", presence: false)
        let resumed = harness.upload("big", size: 200, sha256: Self.content[0], offset: 100, on: Harness.fileStream(12, 1))
        #expect(resumed.fileErrorCodes == ["quota-exceeded"], "400 + 400 + 100 + 200 pass 1000")
        harness.uploadEnded(Harness.fileStream(20, 1), .interrupted(held: 0))
        #expect(harness.upload("big", size: 200, sha256: Self.content[0], offset: 100, on: Harness.fileStream(12, 2)).uploadJobs.count == 1)
    }

    /// Everyone uploading from one (non-exempt) address shares `--file-quota-per-address`, whatever
    /// their peer ids; another address, and an exempt one (empty), are not held by it.
    @Test func guestsOfOneAddressShareAQuota() throws {
        var configuration = ChatServerConfiguration()
        configuration.fileQuotaPerAddressBytes = 500
        let harness = try FileStreamTests.threeClients(configuration)
        harness.login(10, nick: "g1", presence: false, address: "10.0.0.9")
        harness.login(11, nick: "g2", presence: false, address: "10.0.0.9")
        harness.login(12, nick: "g3", presence: false, address: "10.0.0.8")
        #expect(harness.shared("a", size: 300, sha256: Self.content[0], on: Harness.fileStream(10))?.type == "ack")
        #expect(harness.upload("b", size: 201, on: Harness.fileStream(11)).fileErrorCodes == ["quota-exceeded"])
        #expect(harness.upload("c", size: 200, on: Harness.fileStream(11, 1)).uploadJobs.count == 1)
        #expect(harness.upload("d", size: 1, on: Harness.fileStream(10, 1)).fileErrorCodes == ["quota-exceeded"])
        #expect(harness.upload("e", size: 500, on: Harness.fileStream(12)).uploadJobs.count == 1)
        #expect(harness.upload("f", size: 900, on: Harness.fileStream(1)).uploadJobs.count == 1)
    }

    /// Fresh guests of one address cannot push out an earlier member's file: eviction takes the
    /// oldest of the party holding the most bytes, their own.
    @Test func freshGuestsEvictTheirOwnFilesFirst() throws {
        var configuration = ChatServerConfiguration()
        configuration.filesMaxBytes = 400
        let harness = try Harness.floodFree(configuration)
        harness.login(1, nick: "alice", address: "10.0.0.2")
        harness.login(2, nick: "bob", address: "10.0.0.3")
        let member = try #require(harness.shared("m", size: 100, sha256: Self.content[8], on: Harness.fileStream(1))?.file)
        var evicted: [FileBytes] = []
        for guest in UInt64(10)..<16 {
            harness.advance(1)
            harness.login(guest, nick: "guest\(guest)", presence: false, address: "10.0.0.9")
            let key = Harness.fileStream(guest)
            evicted += harness.upload("x", size: 100, sha256: Self.content[Int(guest) - 10], on: key).discarded
            #expect(harness.uploadEnded(key, .stored).fileStreamEnds.first?.message.type == "ack")
            harness.disconnect(guest)
        }
        #expect(harness.header(.download(file: member), on: Harness.fileStream(2)).downloads.count == 1)
        #expect(evicted == [Self.content[0], Self.content[1], Self.content[2]].map { .content($0) })
    }

    /// Below the disk reserve the glue stops an upload (``UploadOutcome/lowOnDisk(held:)``): the
    /// client gets `quota-exceeded`; bytes it sent wait for a resume, none leave no record.
    @Test func lowOnDiskIsQuotaExceededAndKeepsWhatArrived() throws {
        var configuration = ChatServerConfiguration()
        configuration.diskReserveBytes = 12_345
        let harness = try FileStreamTests.threeClients(configuration)
        let empty = try #require(harness.upload("u1", size: 100, on: Harness.fileStream(1)).uploadJobs.first?.job)
        #expect(empty.keepFree == 12_345)
        let refused = harness.uploadEnded(Harness.fileStream(1), .lowOnDisk(held: 0))
        #expect(refused.fileErrorCodes == ["quota-exceeded"] && refused.fileStreamEnds.first?.stopSending == true)
        #expect(refused.discarded == [.partial(empty.partialKey)])
        #expect(harness.upload("u1", size: 100, offset: 0, on: Harness.fileStream(1, 1)).fileErrorCodes == ["bad-offset"])
        let started = try #require(harness.upload("u2", size: 100, on: Harness.fileStream(1, 2)).uploadJobs.first?.job)
        let stopped = harness.uploadEnded(Harness.fileStream(1, 2), .lowOnDisk(held: 60))
        #expect(stopped.fileErrorCodes == ["quota-exceeded"] && stopped.discarded.isEmpty)
        let resumed = try #require(harness.upload("u2", size: 100, offset: 60, on: Harness.fileStream(1, 3)).uploadJobs.first?.job)
        #expect(resumed.partialKey == started.partialKey && resumed.resumes)
    }

    /// Uploads in progress and interrupted ones count as records too (zero bytes cost nothing):
    /// at most `maxPartialUploads` per owner and per address, `maxPartialUploadsTotal` in all; a
    /// resume of one held is not one more.
    @Test func uploadsWaitingAreCountedNotOnlyTheirBytes() throws {
        var configuration = ChatServerConfiguration()
        configuration.maxPartialUploads = 3
        configuration.maxPartialUploadsTotal = 5
        let harness = try FileStreamTests.threeClients(configuration)
        harness.login(10, nick: "g1", presence: false, address: "10.0.0.9")
        for n in Int64(0)..<3 {
            let key = Harness.fileStream(10, n)
            #expect(harness.upload("z\(n)", size: 10, on: key).uploadJobs.count == 1)
            harness.uploadEnded(key, .interrupted(held: 0))
        }
        #expect(harness.upload("z3", size: 10, on: Harness.fileStream(10, 3)).fileErrorCodes == ["quota-exceeded"])
        #expect(harness.upload("z1", size: 10, offset: 0, on: Harness.fileStream(10, 4)).uploadJobs.count == 1)
        // A fresh peer id from the same address is held by the address's count.
        harness.login(11, nick: "g2", presence: false, address: "10.0.0.9")
        #expect(harness.upload("y", size: 10, on: Harness.fileStream(11)).fileErrorCodes == ["quota-exceeded"])
        // Another address has its own count, up to the server's.
        harness.login(12, nick: "g3", presence: false, address: "10.0.0.8")
        #expect(harness.upload("x0", size: 10, on: Harness.fileStream(12)).uploadJobs.count == 1)
        #expect(harness.upload("x1", size: 10, on: Harness.fileStream(12, 1)).uploadJobs.count == 1)
        #expect(harness.upload("x2", size: 10, on: Harness.fileStream(12, 2)).fileErrorCodes == ["quota-exceeded"])
        // A stored upload no longer counts.
        harness.uploadEnded(Harness.fileStream(12), .stored)
        #expect(harness.upload("x3", size: 10, on: Harness.fileStream(12, 3)).uploadJobs.count == 1)
    }

    /// At most `maxUploads` uploads are received at once (each holds a file open): one more is
    /// `unavailable`; a header taking over an upload being received is not one more.
    @Test func uploadsReceivedAtOnceAreBounded() throws {
        var configuration = ChatServerConfiguration()
        configuration.maxUploads = 2
        let harness = try FileStreamTests.threeClients(configuration)
        #expect(harness.upload("a", on: Harness.fileStream(1)).uploadJobs.count == 1)
        #expect(harness.upload("b", on: Harness.fileStream(2)).uploadJobs.count == 1)
        #expect(harness.upload("c", room: "elsewhere", on: Harness.fileStream(3)).fileErrorCodes == ["unavailable"])
        let takeover = harness.upload("a", offset: 0, on: Harness.fileStream(1, 1))
        #expect(takeover.uploadJobs.count == 1 && takeover.abandoned == [Harness.fileStream(1)])
        harness.uploadEnded(Harness.fileStream(2), .interrupted(held: 3))
        #expect(harness.upload("c", room: "elsewhere", on: Harness.fileStream(3, 1)).uploadJobs.count == 1)
    }
}
